import { expect } from 'vitest';
import { call } from '../core/api/dispatcher';
import type { CallContext } from '../core/api/api-types';
import type { TestSandpit } from './sandpit';

export interface PackageTestCalls {
  install: (sessionId: string, packages: string[]) => ReturnType<typeof call<'packages.install'>>;
  check: (sessionId: string, packages: string[]) => ReturnType<typeof call<'packages.check'>>;
  /** Executes `code` in the session, expecting it to succeed; returns the result's repr. */
  run: (sessionId: string, code: string) => Promise<string | undefined>;
}

/** The calls the package install tests make, as `context`, on the test Sandpit `sandpit()` returns (one a beforeAll starts). */
export function packageTestCalls(sandpit: () => TestSandpit, context: CallContext): PackageTestCalls {
  return {
    install: (sessionId, packages) => call(sandpit().api, 'packages.install', { sessionId, packages }, context),
    check: (sessionId, packages) => call(sandpit().api, 'packages.check', { sessionId, packages }, context),
    run: async (sessionId, code) => {
      const r = await sandpit().sessions.session(sessionId).execute(code);
      expect(r.error, r.error?.traceback).toBeUndefined();
      expect(r.status).toBe('ok');
      return r.result;
    },
  };
}
