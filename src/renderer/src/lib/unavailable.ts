import { isSandpitError } from '../../../shared/api/errors';

/**
 * Whether a call failed because this core does not offer the method yet (an older or partly updated
 * Sandpit): the dispatcher's "Unknown method", or a contract method without a handler.
 */
export function isUnavailable(error: unknown): boolean {
  if (isSandpitError(error, 'NOT_FOUND')) return /unknown method/i.test(error.message);
  if (isSandpitError(error, 'INTERNAL')) return /is not a function|not implemented/i.test(error.message);
  return false;
}
