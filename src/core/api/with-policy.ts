import { METHOD_NAMES } from '../../shared/api/contract';
import type { MethodName, MethodOutput, MethodParsedInput } from '../../shared/api/contract';
import { SandpitError } from '../../shared/api/errors';
import { isPanel } from './api-types';
import type { CallContext, Handler, Handlers } from './api-types';
import { askIfNeeded } from './approved';
import type { ApprovalGate } from './approved';
import { audited } from './audited';
import type { AuditDeps } from './audited';
import { METHOD_POLICY } from './method-policy';
import type { MethodPolicy, PolicyTable } from './method-policy';

export interface PolicyDeps {
  audit: AuditDeps;
  approvals: ApprovalGate;
}

/**
 * Every method under its policy, in one place, in this order: who may call it (the panel only, or
 * anyone) and with what (a part of the input only the panel may pass); the audit row (written `running`
 * before anything else, so a refused or denied call is recorded); the person's approval (before the call
 * runs); then the call.
 */
function guarded<M extends MethodName>(handler: Handler<M>, policy: MethodPolicy<M>, deps: PolicyDeps): Handler<M> {
  const { access, panelInput, audit, approval } = policy;
  const approvedRun = async (input: MethodParsedInput<M>, context: CallContext, answer?: (note: string) => void): Promise<MethodOutput<M>> => {
    if (!approval) return handler(input, context);
    const { approvedText } = await askIfNeeded(deps.approvals, approval, input, context, answer);
    return handler(input, approvedText === undefined ? context : { ...context, approvedFileContent: approvedText });
  };
  return async (input, context) => {
    if (access !== 'any' && !isPanel(context)) throw new SandpitError('DENIED', `Only the Sandpit panel may ${access.panel}.`);
    if (panelInput?.present(input) && !isPanel(context)) throw new SandpitError('DENIED', `Only the Sandpit panel may ${panelInput.panel}.`);
    if (!audit) return approvedRun(input, context);
    // How the approval question was answered (and where) goes into the call's audit row.
    let answered: string | undefined;
    return audited(
      deps.audit,
      audit,
      input,
      context,
      (withId, auditId) => approvedRun(withId, { ...context, auditId }, (note) => (answered = note)),
      () => answered,
    );
  };
}

/** The handlers with the policy table applied to each (see METHOD_POLICY). */
export function withPolicy(handlers: Handlers, deps: PolicyDeps, table: PolicyTable = METHOD_POLICY): Handlers {
  const wrapped: Partial<Record<MethodName, unknown>> = {};
  for (const name of METHOD_NAMES) wrapped[name] = guarded(handlers[name] as Handler<typeof name>, table[name] as MethodPolicy<typeof name>, deps);
  return wrapped as Handlers;
}
