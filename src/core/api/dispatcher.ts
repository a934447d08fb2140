import { methods } from '../../shared/api/contract';
import type { MethodName, MethodOutput } from '../../shared/api/contract';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { ErrorBody } from '../../shared/api/errors';
import type { CallContext, Handlers } from './api-types';

export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(methods, name);
}

/** Parse → call → envelope. The only way a transport invokes the API; never throws. */
export async function dispatch(handlers: Handlers, name: string, rawInput: unknown, context: CallContext): Promise<Envelope<unknown>> {
  try {
    if (!isMethodName(name)) throw new SandpitError('NOT_FOUND', `Unknown method "${name}".`);
    return { ok: true, value: await call(handlers, name, rawInput, context) };
  } catch (error) {
    return { ok: false, error: toErrorBody(error) };
  }
}

/** Validates input with the contract and calls the handler; throws SandpitError on bad input. */
export async function call<M extends MethodName>(handlers: Handlers, name: M, rawInput: unknown, context: CallContext): Promise<MethodOutput<M>> {
  const parsed = methods[name].input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    throw new SandpitError('INVALID_INPUT', parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
  }
  const handler = handlers[name] as (input: unknown, context: CallContext) => Promise<MethodOutput<M>>;
  return handler(parsed.data, context);
}
