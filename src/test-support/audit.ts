import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { markInstanceAlive, processStartTime } from '../core/sandbox/instance-identity';
import type { InstanceIdentity } from '../core/sandbox/instance-identity';
import { AuditStore } from '../core/audit/audit-store';
import type { AuditStoreOptions } from '../core/audit/audit-store';
import type { AuditStart } from '../core/audit/audit-writer';

/** An identity of this process; `alive` registers it as a live core (else its rows count as abandoned). */
export function testIdentity(alive = true): InstanceIdentity {
  const identity = { instanceId: randomUUID(), host: hostname(), pid: process.pid, processStart: processStartTime(process.pid) };
  if (alive) markInstanceAlive(identity.instanceId);
  return identity;
}

export interface AuditFixture {
  dir: string;
  path: string;
  open(options?: Partial<AuditStoreOptions>): AuditStore;
  cleanup(): void;
}

/** A throw-away folder for audit databases; every store opened through it (with `defaults` under its own options) is closed on cleanup. */
export function auditFixture(defaults: Partial<AuditStoreOptions> = {}): AuditFixture {
  const dir = mkdtempSync(join(tmpdir(), 'sandpit-audit-'));
  const path = join(dir, 'audit.db');
  const stores: AuditStore[] = [];
  return {
    dir,
    path,
    open: (options = {}) => {
      const store = AuditStore.open({ path, identity: testIdentity(), ...defaults, ...options });
      stores.push(store);
      return store;
    },
    cleanup: () => {
      for (const store of stores) store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function start(overrides: Partial<AuditStart> = {}): AuditStart {
  return { method: 'sessions.execute', transport: 'mcp-http', client: 'test-client', principal: 'p1', sessionId: 'ses-1', code: 'print(1)', ...overrides };
}
