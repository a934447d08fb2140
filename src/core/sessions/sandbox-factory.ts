import type { SandpitConfig } from '../config';
import type { MountedFolder } from '../folders/share-folders';
import type { Logger } from '../log';
import type { SandboxBackend, SandboxFolder } from '../sandbox/sandbox-backend';
import { SandboxDriver } from './sandbox-driver';
import { sandboxFolders } from './session-types';
import type { SessionTemplate } from './session-template';
import type { HandOverDeps } from './warm-handover-flow';

/** The agent ends once no core has been connected for this many seconds (PROTOCOL.md "Channel"). */
export const UNCONNECTED_EXIT_VARIABLE = 'SANDPIT_UNCONNECTED_EXIT_S';

/** What a sandbox is made with: the part of the SessionManager's deps it uses (see SessionManagerDeps). */
export interface SandboxFactoryDeps {
  config: Pick<SandpitConfig, 'startTimeoutMs' | 'graceMs'>;
  backend: SandboxBackend;
  /** Called once as a sandbox's removal for good begins. Must not throw. */
  sandboxRemoved?(sessionId: string): void;
  /** Checks shared folders again before each container that mounts them is made or started (see SandboxSpec). */
  checkFolders?: (folders: readonly SandboxFolder[]) => Promise<SandboxFolder[]>;
  /** How long warm sandboxes left for the next core wait for it (0 or absent: nothing is left). */
  handOver?: Pick<HandOverDeps, 'ms'>;
  log: Logger;
}

/** The driver of a new (or taken-over) sandbox for session `id` from `template`; `pooled` for a warm pool's. */
export function makeSandboxDriver(
  deps: SandboxFactoryDeps,
  id: string,
  template: SessionTemplate,
  pooled: boolean,
  folders: readonly MountedFolder[] = [],
): SandboxDriver {
  const { config } = deps;
  return new SandboxDriver({
    backend: deps.backend,
    spec: {
      sessionId: id,
      language: template.language,
      image: template.image,
      limits: template.limits,
      network: template.network,
      env: sandboxEnv(deps, id, template, pooled),
      isolation: template.isolation,
      pooled,
      ...(template.caDir ? { caDir: template.caDir } : {}),
      ...(folders.length ? { folders: sandboxFolders(folders) } : {}),
      ...(deps.checkFolders ? { checkFolders: deps.checkFolders } : {}),
    },
    log: deps.log,
    startTimeoutMs: config.startTimeoutMs,
    graceMs: config.graceMs,
    onRemove: () => deps.sandboxRemoved?.(id),
  });
}

/**
 * A sandbox's variables: its template's, and for a warm one that may be left for the next core, how long its
 * agent waits for a core once its own is gone before it ends (so a left sandbox no core takes over stops by itself).
 */
function sandboxEnv(
  deps: SandboxFactoryDeps,
  id: string,
  template: SessionTemplate,
  pooled: boolean,
): Record<string, string> | undefined {
  const env = typeof template.env === 'function' ? template.env(id) : template.env;
  const ms = deps.handOver?.ms ?? 0;
  if (!pooled || ms <= 0 || env !== undefined) return env;
  return { [UNCONNECTED_EXIT_VARIABLE]: String(Math.ceil(ms / 1000)) };
}
