import { methods } from '../../shared/api/contract';
import type { MethodName } from '../../shared/api/contract';
import type { CallContext, Handlers } from './api-types';

/**
 * Every method of the contract, answered by `ready`'s handlers once the core is up: a surface can take
 * calls while the core is still starting (each waits for it; a core that failed to start fails them all
 * with its reason).
 */
export function deferredHandlers(ready: Promise<Handlers>): Handlers {
  const entries = (Object.keys(methods) as MethodName[]).map((name) => [
    name,
    async (input: unknown, context: CallContext): Promise<unknown> => {
      const handlers = await ready;
      const handler = handlers[name] as (input: unknown, context: CallContext) => Promise<unknown>;
      return handler(input, context);
    },
  ]);
  return Object.fromEntries(entries) as Handlers;
}
