/** Fills a data folder's audit log with realistic finished rows, through the audit store itself (hash chain and all). */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { AuditStore } from '../src/core/audit/audit-store';
import { processStartTime } from '../src/core/sandbox/instance-identity';
import type { InstanceIdentity } from '../src/core/sandbox/instance-identity';

const CLIENTS = ['claude-desktop', 'cursor', 'vscode-copilot', 'claude-code', 'rest'];
const STATUSES = ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'error', 'timeout', 'denied', 'killed'] as const;
const SNIPPETS = [
  'import pandas as pd\ndf = pd.read_csv("data.csv")\ndf.describe()',
  'import math\nprint(sum(math.sqrt(i) for i in range(10_000)))',
  'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.savefig("chart.png")',
  'for i in range(3):\n    print("step", i)',
  'import json\njson.dumps({"a": 1, "b": [1, 2, 3]})',
];

export interface SeedResult {
  rows: number;
  ms: number;
}

/** Writes `count` completed rows (begin + complete, as real runs do) spread over the last 30 days, oldest first. */
export function seedAuditLog(home: string, count: number): SeedResult {
  const identity: InstanceIdentity = { instanceId: randomUUID(), host: hostname(), pid: process.pid, processStart: processStartTime(process.pid) };
  const store = AuditStore.open({ path: join(home, 'audit.db'), identity });
  const started = performance.now();
  const span = 30 * 86_400_000;
  const t0 = Date.now() - span;
  try {
    for (let i = 0; i < count; i++) {
      const at = new Date(t0 + Math.floor((i / count) * span));
      const client = CLIENTS[i % CLIENTS.length] ?? 'rest';
      const sessionId = `ses-bench${String(i % 97).padStart(5, '0')}`;
      const code = `${SNIPPETS[i % SNIPPETS.length] ?? 'pass'}\n# run ${i}`;
      const row = store.begin({ method: 'sessions.execute', transport: client === 'rest' ? 'rest' : 'mcp-http', client, principal: `bench:${client}`, sessionId, code, startedAt: at });
      const status = STATUSES[i % STATUSES.length] ?? 'ok';
      store.complete(row.id, {
        status,
        finishedAt: new Date(at.getTime() + 40 + (i % 900)),
        sessionId,
        exitCode: status === 'ok' ? 0 : 1,
        stdout: `output of run ${i}\n`.repeat(1 + (i % 5)),
        stderr: status === 'error' ? 'Traceback (most recent call last):\n  ValueError: bad value\n' : '',
        ...(status === 'denied' ? { errorCode: 'DENIED', errorMessage: 'The person using Sandpit denied this run.' } : {}),
      });
    }
  } finally {
    store.close();
  }
  return { rows: count, ms: performance.now() - started };
}
