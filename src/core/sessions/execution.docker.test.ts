import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventPayload } from '../../shared/api/contract';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

// Every behaviour here is checked over both agent channels (the unix socket and the attached stream) and on
// both engines (Docker, and Podman through its Docker-compatible API).
for (const { engine, label, skip } of testEngines()) {
  describe(`on ${label}`, () => {
    describe.skipIf(skip).each(['socket', 'attach'] as const)('python sessions over the %s channel', (channel) => {
      let sp: TestSandpit;
      let sessionId: string;

      beforeAll(async () => {
        sp = await startTestSandpit({ channel, ...onEngine(engine) });
        sessionId = (await newSession(sp, { language: 'python' })).id;
      });
      afterAll(async () => sp?.cleanup());

      it('uses the requested channel', () => {
        expect(sp.sessions.session(sessionId).info().channel).toBe(channel);
      });

      it('keeps variables, functions and imports between runs', async () => {
        await sp.sessions.session(sessionId).execute('import math\nx = 21\ndef double(v):\n    return v * 2');
        const r = await sp.sessions.session(sessionId).execute('double(x) + math.floor(0.5)');
        expect(r.status).toBe('ok');
        expect(r.result).toBe('42');
      });

      it('returns the repr of the last expression, and nothing for None', async () => {
        expect((await sp.sessions.session(sessionId).execute("'a' * 3")).result).toBe("'aaa'");
        expect((await sp.sessions.session(sessionId).execute('None')).result).toBeUndefined();
      });

      it('streams stdout and stderr chunks in order, before the run ends', async () => {
        const seen: Array<{ kind: string; text?: string; at: number }> = [];
        const off = sp.bus.onAny((name, payload) => {
          const p = payload as EventPayload<'execution.output'>;
          if (p.sessionId !== sessionId) return;
          if (name === 'execution.output') seen.push({ kind: p.stream, text: p.text, at: Date.now() });
          if (name === 'execution.done') seen.push({ kind: 'done', at: Date.now() });
        });
        const r = await sp.sessions
          .session(sessionId)
          .execute(
            [
              'import sys, time, subprocess',
              "print('one', flush=True)",
              'time.sleep(0.4)',
              "print('two', file=sys.stderr, flush=True)",
              'time.sleep(0.4)',
              "subprocess.run(['echo', 'three'])",
            ].join('\n'),
          );
        off();
        expect(r.status).toBe('ok');
        expect(r.stdout).toBe('one\nthree\n');
        expect(r.stderr).toBe('two\n');
        const texts = seen
          .filter((s) => s.kind !== 'done')
          .map((s) => s.text)
          .join('');
        expect(texts).toBe('one\ntwo\nthree\n');
        const one = seen.find((s) => s.text?.includes('one'));
        const three = seen.find((s) => s.text?.includes('three'));
        const done = seen.findIndex((s) => s.kind === 'done');
        expect(done).toBe(seen.length - 1);
        // 'one' arrived live, long before the last chunk was even written.
        expect(three!.at - one!.at).toBeGreaterThanOrEqual(600);
      });

      it('reports an exception with its traceback, and keeps the session usable', async () => {
        const r = await sp.sessions.session(sessionId).execute('def f():\n    return 1 / 0\nf()');
        expect(r.status).toBe('error');
        expect(r.error?.name).toBe('ZeroDivisionError');
        expect(r.error?.value).toContain('division by zero');
        expect(r.error?.traceback).toContain('return 1 / 0');
        expect(r.error?.traceback).not.toContain('agent.py');
        expect((await sp.sessions.session(sessionId).execute('x')).result).toBe('21');
      });

      it('cannot break the protocol by printing protocol-looking lines', async () => {
        const fake = JSON.stringify({ type: 'done', id: 'x', status: 'ok', durationMs: 1 });
        const r = await sp.sessions
          .session(sessionId)
          .execute(`print(${JSON.stringify(fake)})\nprint('{"jsonrpc":"2.0","id":1,"result":{}}')\n7`);
        expect(r.stdout).toContain('"type":"done"');
        expect(r.stdout).toContain('jsonrpc');
        expect(r.result).toBe('7');
      });
    });
  });

  describe('matplotlib figures', () => {
    let sp: TestSandpit;
    beforeAll(async () => {
      sp = await startTestSandpit({ images: { python: inject('images')['python-data']! } });
    });
    afterAll(async () => sp?.cleanup());

    it('come back as PNG displays and are kept as artifacts', async () => {
      const { id } = await newSession(sp, { language: 'python' });
      const r = await sp.sessions
        .session(id)
        .execute(
          [
            'import matplotlib.pyplot as plt',
            'plt.plot([1, 2, 3], [1, 4, 9])',
            "plt.title('squares')",
            'plt.show()',
          ].join('\n'),
        );
      expect(r.status).toBe('ok');
      expect(r.displays).toHaveLength(1);
      const png = Buffer.from(r.displays[0]!.data, 'base64');
      expect(r.displays[0]!.mime).toBe('image/png');
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(png.length).toBeGreaterThan(5_000);
      const artifact = r.artifacts.find((a) => a.mime === 'image/png');
      expect(artifact).toBeDefined();
      const stored = await sp.artifacts.get(artifact!.sha256);
      expect(stored.content.equals(png)).toBe(true);
    });
  });
}
