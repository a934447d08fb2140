import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import type { SandboxFolder } from '../sandbox/sandbox-backend';
import type { KeptRecord } from './kept-store';
import { sandboxFolders } from './session-types';

/** The egress proxy's network of some core (`sandpit-egress-<12 hex digits of its instance>`). */
const EGRESS_NETWORK = /^sandpit-egress-[0-9a-f]{12}$/;

/**
 * What is wrong with a kept session's record read back from the data folder, in plain words, or undefined.
 * A record is input: its network must be the one its policy gives (none: no network; open: the engine's
 * network with a way out, `openNetwork`; packages: an egress proxy's network, never used as it is — the next core
 * makes its container again on its own) — so `network: host`, a container network or another policy's network is
 * refused, as the contract would refuse it; so is a record that lists secrets with a policy other than "packages".
 */
export function keptRecordProblem(record: KeptRecord, openNetwork: string): string | undefined {
  if (record.secrets?.length && record.networkPolicy !== 'packages') {
    return `it lists secrets, which only a session on the egress proxy (policy "packages") can use, not one of the policy "${record.networkPolicy}"`;
  }
  if (record.networkPolicy === 'packages') {
    return record.network !== undefined && EGRESS_NETWORK.test(record.network) ? undefined : `it asks for the network "${record.network ?? 'none'}", not the egress proxy's its policy "packages" gives`;
  }
  const wanted = record.networkPolicy === 'open' ? openNetwork : undefined;
  if (record.network !== wanted) {
    return `it asks for the network "${record.network ?? 'none'}", not the one its policy "${record.networkPolicy}" gives (${wanted ?? 'none'})`;
  }
  return undefined;
}

/**
 * Whether the next core may take a kept record over: one whose network is refused is logged and left as it is
 * (nothing of it starts). Its shared folders are checked again at every start; one refused already is said now
 * (the session is listed, and will not start until it is stopped).
 */
export async function keptRecordAccepted(
  record: KeptRecord,
  openNetwork: string,
  log: Logger,
  checkFolders?: (folders: readonly SandboxFolder[]) => Promise<SandboxFolder[]>,
): Promise<boolean> {
  const problem = keptRecordProblem(record, openNetwork);
  if (problem) {
    log.warn('a kept session record is refused; it is left as it is and nothing of it is started', { sessionId: record.id, reason: problem });
    return false;
  }
  if (record.folders?.length && checkFolders) {
    await checkFolders(sandboxFolders(record.folders)).catch((error: unknown) =>
      log.warn("a kept session's shared folder is refused: the session is listed but will not start until it is stopped", { sessionId: record.id, error: toErrorBody(error).message }),
    );
  }
  return true;
}
