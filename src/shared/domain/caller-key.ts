import { z } from 'zod';

/**
 * Who a caller is as the data folder writes it down (background runs' owners, chat approvals given for a session):
 * a principal (`token:` + 16 hex, `mcp:…`, `stdio`, `stdio:<pid>`), or a client's key across reconnects — a principal,
 * a NUL, and the client's name. Read back from a file, anything else is refused.
 */
const PRINCIPAL = /^[a-z]+(:[^/\\]{1,200})?$/;

export const callerKeySchema = z
  .string()
  .max(400)
  .refine((key) => {
    const [principal, name, ...rest] = key.split('\u0000');
    return rest.length === 0 && PRINCIPAL.test(principal ?? '') && (name === undefined || (name.length > 0 && name.length <= 200));
  }, 'not a caller Sandpit knows');
