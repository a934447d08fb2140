import { SandpitError } from '../../shared/api/errors';
import type { AuditStore } from '../audit/audit-store';
import type { Handlers } from './api-types';

type AuditMethods = 'audit.list' | 'audit.get' | 'audit.verify' | 'audit.export';

/**
 * Reading the audit log. The panel (no principal) sees every row; any other caller sees only the rows of
 * its own calls.
 */
export function auditHandlers(audit: AuditStore): Pick<Handlers, AuditMethods> {
  return {
    'audit.list': async ({ filters, limit, cursor }, context) => audit.list({ filters, limit, cursor, principal: context.principal }),
    'audit.get': async ({ id }, context) => {
      const entry = audit.get(id, context.principal);
      if (!entry) throw new SandpitError('NOT_FOUND', `There is no audit row ${id}.`);
      return entry;
    },
    'audit.verify': async () => audit.verify(),
    'audit.export': async ({ format, filters, limit }, context) => audit.export(format, { filters, principal: context.principal }, limit),
  };
}
