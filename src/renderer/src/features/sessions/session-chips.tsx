import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../../shared/domain/session';
import { ISOLATION_WORDS } from '../../../../shared/domain/isolation';
import { FOLDER_MODE_WORDS } from '../../../../shared/domain/shared-folder';
import { NETWORK_SHORT } from './session-words';

/** The environment, and what differs from the safe defaults (network, strong isolation, shared folders), as small chips. */
export function SessionChips({ session }: { session: SessionInfo }): ReactElement {
  return (
    <>
      {session.environmentName ? (
        <span className="chip-static" data-testid="session-environment">
          {session.environmentName}
        </span>
      ) : null}
      {session.isolation === 'strong' ? (
        <span className="chip-static" data-testid="session-isolation">
          {ISOLATION_WORDS.strong}
        </span>
      ) : null}
      {session.network !== 'none' ? (
        <span className={session.network === 'open' ? 'chip-static chip-warn' : 'chip-static'} data-testid="session-network">
          {NETWORK_SHORT[session.network]}
        </span>
      ) : null}
      {session.folders.length > 0 ? (
        <span
          className={session.folders.some((f) => f.mode === 'rw') ? 'chip-static chip-warn' : 'chip-static'}
          title={session.folders.map((f) => `${f.hostPath} (${FOLDER_MODE_WORDS[f.mode]})`).join('\n')}
          data-testid="session-folders"
        >
          {session.folders.length === 1 ? '1 folder of this computer' : `${session.folders.length} folders of this computer`}
          {session.folders.some((f) => f.mode === 'rw') ? ', can change files' : ''}
        </span>
      ) : null}
    </>
  );
}
