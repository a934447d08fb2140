// The Python agent and modules planted in its workspace (the working directory user code imports from): the
// agent's own imports between runs never load them. Run with the host's python3 (SANDPIT_TEST_PYTHON overrides).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnAgent, waitUntil } from '../test-support/agent-client';
import type { SpawnedAgent } from '../test-support/agent-client';

const AGENT = join(import.meta.dirname, 'agent.py');
const PYTHON = process.env.SANDPIT_TEST_PYTHON ?? 'python3';
const MARKER = 'PLANTED-RAN';

describe('python agent: modules planted in the workspace', () => {
  let agent: SpawnedAgent;
  const outside = mkdtempSync(join(tmpdir(), 'sandpit-agent-imports-'));
  const planted = (name: string): void =>
    writeFileSync(join(agent.workspace, `${name}.py`), `open(${JSON.stringify(join(agent.workspace, `${MARKER}-${name}`))}, 'w').write('ran')\nraise ImportError('planted ${name}')\n`);

  beforeAll(() => {
    // As the image starts it: -s, no user site.
    agent = spawnAgent([PYTHON, '-s', AGENT], { workspacePrefix: 'sandpit-agent-ws-', env: {} });
    // Named like modules the agent or the standard library import late (platform: the hello's version).
    for (const name of ['platform', 'csv', 'json', 'tokenize']) planted(name);
    writeFileSync(join(agent.workspace, 'own_mod.py'), 'VALUE = 7\n');
  });
  afterAll(() => {
    agent.client.checkFraming();
    agent.stop();
    rmSync(outside, { recursive: true, force: true });
  });

  const markers = (): string[] => ['platform', 'csv', 'json', 'tokenize'].filter((name) => existsSync(join(agent.workspace, `${MARKER}-${name}`)));

  it('answers hello with the real version, loading nothing planted', async () => {
    const hello = await agent.client.hello();
    expect(hello.version).toMatch(/^3\.\d+\.\d+/);
    expect(markers()).toEqual([]);
  });

  it('between runs, a late import finds the standard library, not the workspace', async () => {
    const go = join(outside, 'go');
    const out = join(outside, 'out');
    // A thread the run leaves behind imports csv once the run is over (when the test says go).
    const code = [
      'import os, threading, time',
      'def later():',
      `    while not os.path.exists(${JSON.stringify(go)}): time.sleep(0.01)`,
      '    import csv',
      `    open(${JSON.stringify(out)}, 'w').write(csv.__file__)`,
      'threading.Thread(target=later, daemon=True).start()',
    ].join('\n');
    expect((await agent.client.run(code)).done).toMatchObject({ status: 'ok' });
    writeFileSync(go, '');
    await waitUntil(() => existsSync(out) && readFileSync(out, 'utf8') !== '', 'the thread to import csv');
    expect(readFileSync(out, 'utf8')).not.toContain(agent.workspace);
    expect(readFileSync(out, 'utf8')).toMatch(/csv\.py$/);
    expect(markers()).toEqual([]);
  });

  it("a run imports the user's own modules from the working directory, as Python does", async () => {
    const run = await agent.client.run('import own_mod\n(own_mod.VALUE, own_mod.__file__)');
    expect(run.result).toBe(`(7, '${join(agent.workspace, 'own_mod.py')}')`);
    // The file listing, the after-run scan: still nothing planted ran.
    expect(markers()).toEqual([]);
  });
});
