import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISOLATION_LEVELS } from '../../shared/domain/isolation';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

/** Attacks from inside the sandbox: runaway loops, leftovers, fork and memory bombs, output floods — under runc and under gVisor. */
// On Docker under both isolation levels, and on Podman (Standard only: Strong isolation is refused there, see hardening.docker.test.ts).
for (const { engine, label, skip } of testEngines()) {
  describe(`on ${label}`, () => {
    describe.skipIf(skip).each(ISOLATION_LEVELS.filter((level) => engine === 'docker' || level === 'standard'))(
      'limits and timeouts (%s isolation)',
      (isolation) => {
        let sp: TestSandpit;
        beforeAll(async () => {
          sp = await startTestSandpit({ graceMs: 2_000, defaultIsolation: isolation, ...onEngine(engine) });
        });
        afterAll(async () => sp?.cleanup());

        it('interrupts `while True: pass` at the timeout and keeps the session and its state', async () => {
          const { id } = await newSession(sp, {});
          await sp.sessions.session(id).execute('kept = "yes"');
          const started = Date.now();
          const r = await sp.sessions.session(id).execute('while True:\n    pass', { timeoutMs: 2_000 });
          const elapsed = Date.now() - started;
          expect(r.status).toBe('timeout');
          expect(r.stateLost).toBe(false);
          expect(r.message).toMatch(/time limit/);
          expect(elapsed).toBeLessThan(2_000 + 2_000 + 1_500);
          expect((await sp.sessions.session(id).execute('kept')).result).toBe("'yes'");
        });

        it('kills and restarts the container when the code ignores the interrupt: variables are lost, files are kept, and it says so', async () => {
          const { id } = await newSession(sp, {});
          await sp.sessions.session(id).execute("lost = 1\nopen('/workspace/notes.txt', 'w').write('kept')");
          const started = Date.now();
          const r = await sp.sessions
            .session(id)
            .execute('import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass', {
              timeoutMs: 1_500,
            });
          expect(r.status).toBe('timeout');
          expect(r.stateLost).toBe(true);
          expect(r.message).toMatch(/variables were lost; the files in \/workspace were kept/);
          expect(Date.now() - started).toBeLessThan(1_500 + 2_000 + 10_000);
          const after = await sp.sessions
            .session(id)
            .execute("'lost' in globals(), open('/workspace/notes.txt').read()");
          expect(after.result).toBe("(False, 'kept')");
        });

        it('leaves no process of a timed-out run alive', async () => {
          const { id } = await newSession(sp, {});
          const r = await sp.sessions
            .session(id)
            .execute("import subprocess, time\nsubprocess.Popen(['sleep', '1000'])\ntime.sleep(100)", {
              timeoutMs: 1_500,
            });
          expect(r.status).toBe('timeout');
          const ps = await sp.sessions
            .session(id)
            .execute(
              [
                'import os',
                'names = []',
                "for p in os.listdir('/proc'):",
                '    if p.isdigit():',
                '        try:',
                "            names.append(open(f'/proc/{p}/comm').read().strip())",
                '        except OSError:',
                '            pass',
                'sorted(names)',
              ].join('\n'),
            );
          expect(ps.result).not.toContain('sleep');
        });

        it('says timeout, and leaves no process behind, when the code caught the interrupt and returned in time', async () => {
          const { id } = await newSession(sp, {});
          const code = [
            'import subprocess, time',
            "subprocess.Popen(['sleep', '1000'])",
            'try:',
            '    time.sleep(100)',
            'except KeyboardInterrupt:',
            '    pass',
            "'returned'",
          ].join('\n');
          const r = await sp.sessions.session(id).execute(code, { timeoutMs: 1_500 });
          expect(r.result).toBe("'returned'");
          expect(r.status).toBe('timeout');
          expect(r.stateLost).toBe(false);
          expect(r.message).toMatch(/time limit/);
          const ps = await sp.sessions
            .session(id)
            .execute(
              [
                'import os',
                'names = []',
                "for p in os.listdir('/proc'):",
                '    if p.isdigit():',
                '        try:',
                "            names.append(open(f'/proc/{p}/comm').read().strip())",
                '        except OSError:',
                '            pass',
                'sorted(names)',
              ].join('\n'),
            );
          expect(ps.status).toBe('ok');
          expect(ps.result).not.toContain('sleep');
        });

        it('stops a background process when its run ends: the next run shows none of its output, and it is gone', async () => {
          const { id } = await newSession(sp, {});
          const printer = [
            'import os, subprocess, sys, time',
            "p = subprocess.Popen([sys.executable, '-c', \"import time\\nwhile True:\\n    print('bg-line', flush=True)\\n    open('/tmp/bg-printed', 'w').close()\\n    time.sleep(0.05)\"])",
            // Waits (bounded) until the printer has printed once, not a fixed time a loaded machine can exceed.
            'deadline = time.monotonic() + 30',
            "while not os.path.exists('/tmp/bg-printed') and time.monotonic() < deadline:",
            '    time.sleep(0.02)',
            'time.sleep(0.2)',
          ].join('\n');
          const first = await sp.sessions.session(id).execute(printer);
          expect(first.status, first.error?.traceback).toBe('ok');
          expect(first.stdout).toMatch(/^(bg-line\n)+$/);
          expect(first.message).toMatch(/A process this run left running in the background was stopped when it ended/);
          const second = await sp.sessions.session(id).execute("import time\ntime.sleep(0.3)\nprint('second')");
          expect(second.stdout).toBe('second\n');
          expect(second.message).toBeUndefined();
          const ps = await sp.sessions
            .session(id)
            .execute(
              [
                'import os',
                'found = []',
                "for n in os.listdir('/proc'):",
                '    try:',
                "        if n.isdigit() and b'bg-line' in open(f'/proc/{n}/cmdline', 'rb').read():",
                '            found.append(n)',
                '    except OSError:',
                '        pass',
                'found',
              ].join('\n'),
            );
          expect(ps.result).toBe('[]');
          // what lasts lives in variables: the Popen object is still there, its process is not
          expect((await sp.sessions.session(id).execute('p.poll() is not None')).result).toBe('True');
        });

        // Under gVisor the cap inside is RLIMIT_NPROC (gVisor's kernel counts per sandbox) and the host pids limit
        // leaves room for gVisor's own processes: a host limit of 64 killed the Sentry, agent and all.
        it(`contains a fork bomb with the pids limit, and the next run works${isolation === 'strong' ? ' (RLIMIT_NPROC inside gVisor)' : ''}`, async () => {
          // Under gVisor 64 forked interpreters take more than the default 512 MiB (≈ 8 MiB each in the Sentry's
          // accounting), and a memory kill there takes the whole sandbox (the gap below): memory enough that the
          // pids limit is what stops the bomb.
          const { id } = await newSession(sp, {
            limits: { pids: 64, ...(isolation === 'strong' ? { memoryMb: 2048 } : {}) },
          });
          const r = await sp.sessions
            .session(id)
            .execute('import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass', {
              timeoutMs: 3_000,
            });
          expect(['timeout', 'error']).toContain(r.status);
          const next = await sp.sessions.session(id).execute('6 * 7', { timeoutMs: 10_000 });
          expect(next.status).toBe('ok');
          expect(next.result).toBe('42');
          const pids = await sp.sessions
            .session(id)
            .execute("import os\nlen([p for p in os.listdir('/proc') if p.isdigit()])");
          expect(Number(pids.result)).toBeLessThan(10);
        });

        it(
          engine === 'docker'
            ? 'reports a 4 GiB allocation as oom and the session is usable afterwards'
            : 'says a 4 GiB allocation killed the sandbox and Podman does not report memory kills, and the session is usable afterwards',
          async () => {
            const { id } = await newSession(sp, { limits: { memoryMb: 256 } });
            const run = sp.sessions.session(id).execute("big = ' ' * (4 * 1024 ** 3)", { timeoutMs: 30_000 });
            if (engine === 'docker') {
              const r = await run;
              expect(r.status).toBe('oom');
              expect(r.message).toMatch(/memory limit/);
            } else {
              // Podman gives neither State.OOMKilled nor an oom event for the agent itself: never "ok", and said plainly.
              await expect(run).rejects.toMatchObject({
                code: 'CONTAINER_DIED',
                message: expect.stringMatching(
                  /killed \(exit code 137\); Podman does not report out-of-memory kills, so this may have been the 256 MiB memory limit/,
                ) as unknown,
              });
            }
            const next = await sp.sessions.session(id).execute('1 + 1');
            expect(next.result).toBe('2');
          },
        );

        // A known gap under gVisor (found here): the host's OOM killer takes the whole sandbox instead of the child —
        // all of a sandbox's memory is in gVisor's Sentry, so no other victim frees any, and this runsc (2022-12-19)
        // has no OOM killer of its own. Said in the report, not hidden (docs/architecture.md).
        it.skipIf(isolation === 'strong')(
          `reports a child process killed for memory as oom while the session keeps its state${isolation === 'strong' ? ' — NOT YET UNDER gVISOR (skipped: the whole sandbox is killed)' : ''}`,
          async () => {
            const { id } = await newSession(sp, { limits: { memoryMb: 256 } });
            await sp.sessions.session(id).execute('keep = 5');
            const r = await sp.sessions
              .session(id)
              .execute(
                "import subprocess\nsubprocess.run(['python3', '-c', \"x = ' ' * (2 * 1024 ** 3)\"]).returncode",
                {
                  timeoutMs: 30_000,
                },
              );
            expect(r.status).toBe('oom');
            expect(r.stateLost).toBe(false);
            expect((await sp.sessions.session(id).execute('keep')).result).toBe('5');
          },
        );

        it('truncates an endless print with a visible marker and bounded host memory', async () => {
          const { id } = await newSession(sp, { limits: { outputBytes: 64 * 1024 } });
          const before = process.memoryUsage().rss;
          const r = await sp.sessions.session(id).execute("while True:\n    print('x' * 1000)", { timeoutMs: 3_000 });
          const grown = process.memoryUsage().rss - before;
          expect(r.status).toBe('timeout');
          expect(r.truncated.stdout).toBe(true);
          expect(r.stdout).toMatch(
            /\[output truncated: \d+ more bytes of stdout not shown \(limit 64 KiB per stream\)\]/,
          );
          expect(r.stdout.length).toBeLessThan(64 * 1024 + 500);
          expect(grown).toBeLessThan(200 * 1024 * 1024);
        });
      },
    );
  });
}
