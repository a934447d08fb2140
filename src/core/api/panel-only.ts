import { SandpitError } from '../../shared/api/errors';
import type { CallContext } from './sandpit-api';

/** The panel (IPC, or the web panel over /api) calls without a principal; every other caller has one. */
export function isPanel(context: CallContext): boolean {
  return context.principal === undefined;
}

/** Refuses anyone but the panel: `what` says what they tried, in plain words ("see the access token"). */
export function requirePanel(context: CallContext, what: string): void {
  if (!isPanel(context)) throw new SandpitError('DENIED', `Only the Sandpit panel may ${what}.`);
}
