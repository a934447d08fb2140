import { SandpitError } from '../../shared/api/errors';
import type { SandpitConfig } from '../config';
import type { Logger } from '../log';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import { LoopWorkspaces, canLoopMount, plainWorkspaces } from './workspace-storage';
import type { WorkspaceStorage } from './workspace-storage';

/**
 * The best workspace this machine allows: a capped ext4 of its own per session when the engine is local
 * and Sandpit may make loop devices, else a plain disk volume. `loop` insists (and fails when it cannot).
 */
export async function chooseWorkspaceStorage(
  setting: SandpitConfig['workspaceStorage'],
  localEngine: boolean,
  root: string,
  identity: InstanceIdentity,
  log: Logger,
  /** The workspace size most sandboxes get: its empty file system is made at once, ahead of the first sandbox. */
  usualWorkspaceMb?: number,
): Promise<WorkspaceStorage> {
  if (setting === 'volume') return plainWorkspaces;
  const possible = await canLoopMount(localEngine);
  if (possible) {
    const loop = new LoopWorkspaces(root, identity, log);
    if (usualWorkspaceMb !== undefined) loop.prewarm(usualWorkspaceMb);
    return loop;
  }
  if (setting === 'loop') {
    throw new SandpitError('INVALID_INPUT', 'Capped disk workspaces need a local Docker engine on Linux, root, loop devices and e2fsprogs (mkfs.ext4, debugfs).');
  }
  log.info('workspaces are plain disk volumes: single files are capped, the total is not (capped workspaces need a local engine on Linux and root)');
  return plainWorkspaces;
}
