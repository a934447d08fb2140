import { SandpitError } from '../../shared/api/errors';
import type { FolderMode } from '../../shared/domain/shared-folder';
import type { PathRules } from './folder-rules';

/** A folder as far as nesting goes: where it is on this computer, and how the sandbox has it. */
export interface NestedCandidate {
  hostPath: string;
  mode: FolderMode;
}

/**
 * Refuses two folders of one session where one lies inside the other and the outer one is read-write: the
 * sandbox could replace the inner folder, through the outer share, with a link to anywhere (a protected
 * folder, `/`), and the next container start would follow it. Inner folders of a read-only share are fine.
 */
export function assertNoWritableNesting(folders: readonly NestedCandidate[], rules: PathRules): void {
  for (const outer of folders) {
    if (outer.mode !== 'rw') continue;
    for (const inner of folders) {
      if (inner === outer || rules.key(inner.hostPath) === rules.key(outer.hostPath) || !rules.within(inner.hostPath, outer.hostPath)) continue;
      throw new SandpitError(
        'CONFLICT',
        `${inner.hostPath} is inside ${outer.hostPath}, which this session may change (read-write): its code could replace ${inner.hostPath} with a link to any folder of this computer. Share only ${outer.hostPath}, or share it read-only.`,
        { reason: 'nested' },
      );
    }
  }
}
