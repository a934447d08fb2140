// One conformance suite for every agent (../PROTOCOL.md): what any agent must do, whatever its language, said
// through the protocol only. Each agent is one entry of AGENTS_UNDER_TEST (agent-conformance.test.ts): how to start
// it, and a few snippets of code in its language. Agent-specific behaviour stays in each agent's own tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonLinesClient } from './agent-client';

export interface AgentUnderTest {
  /** The `language` its hello names. */
  language: string;
  /** Starts a fresh agent; `stop` ends it and removes what it made. */
  start(): { client: JsonLinesClient; stop: () => void; stderr: () => string };
  /** Code in the agent's language. */
  code: {
    /** Prints `text` and a newline on stdout. */
    print(text: string): string;
    /** Prints `text` and a newline on stderr. */
    printErr(text: string): string;
    /** Prints `n` times the letter x (no newline) on stdout. */
    printMany(n: number): string;
    /** Sleeps `seconds` (a blocking wait an interrupt must end). */
    sleep(seconds: number): string;
    /** Fails: the error's `name` is `errorName`. */
    fail: string;
    errorName: string;
    /** Writes `text` to the workspace file `path`. */
    writeFile(path: string, text: string): string;
    /** Sets a variable, then reads it in the next execution: `value` is what a stateful language shows, what a
     * stateless one (bash) shows instead. */
    state: { set: string; get: string; value: string };
  };
}

export function describeAgentConformance(name: string, agent: AgentUnderTest): void {
  describe(`agent conformance: ${name}`, () => {
    let client: JsonLinesClient;
    let stop: () => void;
    let stderr: () => string;

    beforeAll(() => {
      ({ client, stop, stderr } = agent.start());
    });
    afterAll(() => {
      client.checkFraming(); // every execution has one done, its last message
      expect(stderr()).toBe(''); // the agent logged no internal failure
      stop();
    });

    it('answers hello with its language, version, pid and protocol 1', async () => {
      const hello = await client.hello();
      expect(hello).toMatchObject({ language: agent.language, protocol: 1, pid: expect.any(Number) as unknown });
      expect(hello.version).toMatch(/^\d+\.\d+/);
    });

    it('streams stdout and stderr before done, and done says ok with a duration', async () => {
      const run = await client.run(`${agent.code.print('out')}\n${agent.code.printErr('err')}`);
      expect(run.stdout).toBe('out\n');
      expect(run.stderr).toBe('err\n');
      expect(run.done).toMatchObject({ status: 'ok', durationMs: expect.any(Number) as unknown, straysKilled: 0 });
    });

    it('keeps state between executions as its language does (bash: none but files)', async () => {
      await client.run(agent.code.state.set);
      const run = await client.run(agent.code.state.get);
      expect(`${run.result ?? ''}${run.stdout}`).toContain(agent.code.state.value);
    });

    it('reports an error with its name, value and traceback, the status error', async () => {
      const run = await client.run(agent.code.fail);
      expect(run.error).toMatchObject({ type: 'error', name: agent.code.errorName, value: expect.any(String) as unknown, traceback: expect.any(String) as unknown });
      expect(run.done.status).toBe('error');
    });

    it('forwards at most outputLimit bytes per stream and counts the rest in dropped', async () => {
      const run = await client.run(agent.code.printMany(5000), 1000);
      expect(run.stdout).toBe('x'.repeat(1000));
      expect(run.done.dropped).toMatchObject({ stdout: 4000 });
    });

    it('interrupts a blocking wait', async () => {
      const id = client.start(agent.code.sleep(30));
      await new Promise((r) => setTimeout(r, 300));
      client.send({ type: 'interrupt', id });
      const run = await client.collect(id, 10_000);
      expect(run.done.status).toBe('interrupted');
      expect(run.done.durationMs as number).toBeLessThan(10_000);
      expect((await client.run(agent.code.print('after'))).stdout).toBe('after\n');
    });

    it('honours an interrupt that arrives before a queued execution starts', async () => {
      const first = client.start(`${agent.code.sleep(0.3)}\n${agent.code.print('A')}`);
      const queued = client.start(agent.code.print('B'));
      client.send({ type: 'interrupt', id: queued });
      expect(await client.collect(first)).toMatchObject({ stdout: 'A\n', done: { status: 'ok' } });
      expect(await client.collect(queued)).toMatchObject({ stdout: '', done: { status: 'interrupted' } });
    });

    it('ignores malformed and unknown requests', async () => {
      client.write('not json\n[1, 2]\n{"type":"bogus","id":"z1"}\n{"type":"execute","id":"z2"}\n\n');
      await client.hello();
      expect((await client.run(agent.code.print('ok'))).stdout).toBe('ok\n');
      expect(client.received.filter((r) => r.msg.id === 'z1' || r.msg.id === 'z2')).toEqual([]);
    });

    it('runs queued executions in arrival order', async () => {
      const ids = [0, 1, 2].map((i) => client.start(`${agent.code.sleep(0.05)}\n${agent.code.print(String(i))}`));
      const runs = await Promise.all(ids.map((id) => client.collect(id)));
      expect(runs.map((r) => r.stdout)).toEqual(['0\n', '1\n', '2\n']);
    });

    it('lists the files an execution made in done, and serves them back over fs', async () => {
      const run = await client.run(agent.code.writeFile('conformance/made.txt', 'made here'));
      expect(run.done.files).toEqual([{ path: 'conformance/made.txt', size: 9 }]);
      const read = await client.readFile('conformance/made.txt');
      expect(read.reply).toMatchObject({ type: 'fs-done', size: 9 });
      expect(read.data.toString()).toBe('made here');
      expect((await client.readFile('conformance/none.txt')).reply).toMatchObject({ type: 'fs-error', code: 'NOT_FOUND' });
      expect((await client.readFile('../etc/passwd')).reply).toMatchObject({ type: 'fs-error', code: 'INVALID_PATH' });
    });

    it('answers reap with how many processes it killed', async () => {
      expect(await client.reap()).toMatchObject({ type: 'reaped', killed: expect.any(Number) as unknown });
    });
  });
}
