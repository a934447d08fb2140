// A core that keeps many short runs going in parallel and prints each result's audit id the moment the
// handler returns it, until it is killed with SIGKILL (src/core/audit/audit-crash.docker.test.ts).
import { call } from '../core/api/dispatcher';
import type { CallContext } from '../core/api/api-types';
import { createSandpit } from '../core/app';
import { defaultConfig } from '../core/config';
import { silentLogger } from '../core/log';

const image = process.env.SANDPIT_TEST_IMAGE;
if (!image) throw new Error('SANDPIT_TEST_IMAGE is required');
const PARALLEL = 6;
const context: CallContext = { transport: 'mcp-http', client: 'crash-child', principal: 'crash-principal' };
const sandpit = await createSandpit(defaultConfig({ poolSize: 0, egressProxy: false, images: { python: image } }), { logger: silentLogger });
const sessions = await Promise.all(Array.from({ length: PARALLEL + 1 }, () => call(sandpit.api, 'sessions.create', {}, context)));
const [sleeper, ...workers] = sessions;
if (!sleeper) throw new Error('no session');
// A run that is certainly still going when the kill comes: its row is `running` in the file.
void call(sandpit.api, 'sessions.execute', { sessionId: sleeper.id, code: 'import time\ntime.sleep(600)' }, context).catch(() => undefined);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);

async function loop(sessionId: string, worker: number): Promise<never> {
  for (let i = 0; ; i += 1) {
    const { auditId } =
      i % 3 === 2
        ? await call(sandpit.api, 'sessions.runCommand', { sessionId, command: `echo ${worker}-${i}` }, context)
        : await call(sandpit.api, 'sessions.execute', { sessionId, code: `print(${worker} * 1000 + ${i})` }, context);
    process.stdout.write(`${JSON.stringify({ auditId })}\n`);
  }
}
await Promise.all(workers.map((s, worker) => loop(s.id, worker)));
