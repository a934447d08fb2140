import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandpit } from '../src/core/app';
import { defaultConfig } from '../src/core/config';
import { createLogger } from '../src/core/log';
import { newSession } from '../src/test-support/sessions';
async function main() {
  const home = await mkdtemp(join(tmpdir(), 'sp-podman-'));
  const sp = await createSandpit(defaultConfig({ home, poolSize: 0, egressProxy: false, dockerHost: 'unix:///tmp/podman.sock', images: { python: 'sandpit/python:2e2daaf2819a' } }), { logger: createLogger({}, 'debug') });
  const info = await newSession(sp, {});
  const t0 = Date.now();
  await sp.docker.killContainer(info.containerId, 'SIGKILL');
  console.error('KILLED', Date.now() - t0);
  for (let i = 0; i < 300; i++) {
    const st = await sp.docker.inspectContainer(info.containerId);
    if (st.running && sp.sessions.session(info.id).runtime.connected) { console.error('BACK', Date.now() - t0); break; }
    await new Promise((r) => setTimeout(r, 100));
  }
  await sp.dispose();
}
main();
