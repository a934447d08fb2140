import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISOLATION_LEVELS } from '../../shared/domain/isolation';
import type { Language } from '../../shared/domain/languages';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

interface FdHogCase {
  language: Language;
  /**
   * Writes /workspace/before-hog.txt, leaves a process running in the background, then opens files until EMFILE and
   * keeps them; prints `held N`.
   */
  hog: string;
  /** The next run: prints `next` and writes /workspace/after-hog.txt (after letting a few descriptors go). */
  next: string;
}

const CASES: FdHogCase[] = [
  {
    language: 'python',
    hog: [
      "open('/workspace/before-hog.txt', 'w').write('made before')",
      'import subprocess',
      "subprocess.Popen(['sleep', '1000'], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)",
      'fds = []',
      'try:',
      '    while True:',
      "        fds.append(open('/dev/null'))",
      'except OSError as exc:',
      '    assert exc.errno == 24, exc',
      "print('held', len(fds))",
    ].join('\n'),
    next: [
      'for f in fds[:8]:',
      '    f.close()',
      "open('/workspace/after-hog.txt', 'w').write('made after')",
      "print('next', len(fds))",
    ].join('\n'),
  },
  {
    language: 'javascript',
    hog: [
      "const fs = require('fs');",
      "fs.writeFileSync('/workspace/before-hog.txt', 'made before');",
      "require('child_process').spawn('sleep', ['1000'], { stdio: 'ignore', detached: true }).unref();",
      'globalThis.fds = [];',
      'try {',
      "  for (;;) fds.push(fs.openSync('/dev/null', 'r'));",
      '} catch (error) {',
      "  if (error.code !== 'EMFILE') throw error;",
      '}',
      "console.log('held', fds.length);",
    ].join('\n'),
    next: [
      "for (const fd of fds.splice(0, 8)) require('fs').closeSync(fd);",
      "require('fs').writeFileSync('/workspace/after-hog.txt', 'made after');",
      "console.log('next', fds.length);",
    ].join('\n'),
  },
  {
    language: 'bash',
    hog: [
      'echo "made before" > /workspace/before-hog.txt',
      'n=0',
      'while exec {fd}</dev/null; do n=$((n + 1)); done 2>/dev/null',
      // a process left holding every descriptor it may, until the end of the run
      '(while exec {fd}</dev/null; do :; done 2>/dev/null; sleep 1000) &',
      'sleep 0.5',
      'echo "held $n"',
    ].join('\n'),
    next: 'echo "made after" > /workspace/after-hog.txt; echo next',
  },
];

/**
 * Code that takes every file descriptor it may (and keeps them) must not break the session: the agent keeps
 * a reserve for its own work around a run (output, the after-run file scan, the host's file reads), so the
 * run ends `ok` with its output and its files, and the next run in the same session works.
 */
describe.each(ISOLATION_LEVELS)('file descriptor exhaustion from inside the sandbox (%s isolation)', (isolation) => {
  let sp: TestSandpit;
  beforeAll(async () => {
    sp = await startTestSandpit({ graceMs: 2_000, defaultIsolation: isolation });
  });
  afterAll(async () => sp?.cleanup());

  it.each(CASES)(
    '$language: the run that takes every descriptor ends ok with its output and files, and the next run works',
    async ({ language, hog, next }) => {
      const { id } = await newSession(sp, { language });
      const session = sp.sessions.session(id);

      const r = await session.execute(hog, { timeoutMs: 30_000 });
      expect(r.error).toBeUndefined();
      expect(r.status).toBe('ok');
      const held = /held (\d+)/.exec(r.stdout);
      expect(held, r.stdout + r.stderr).not.toBeNull();
      // it really ran out: nearly the whole table (1024 in the container profile) minus the agent's reserve
      expect(Number(held?.[1])).toBeGreaterThan(500);
      expect(r.files.map((f) => f.path)).toContain('before-hog.txt');
      expect(r.artifacts.map((a) => a.path)).toContain('before-hog.txt');
      // the agent read /proc to find what the run left behind, and stopped it, though the code kept every descriptor
      // (bash's background jobs end with their command's process group instead, and are not strays)
      if (language !== 'bash')
        expect(r.message).toMatch(
          /(A process|\d+ processes) this run left running in the background (was|were) stopped when it ended/,
        );

      const after = await session.execute(next, { timeoutMs: 30_000 });
      expect(after.error).toBeUndefined();
      expect(after.status).toBe('ok');
      expect(after.stdout).toMatch(/^next/);
      expect(after.files.map((f) => f.path)).toContain('after-hog.txt');
      expect(after.artifacts.map((a) => a.path)).toContain('after-hog.txt');
      // the host still reads and lists the workspace through the agent
      expect((await session.readFile('after-hog.txt')).content.toString('utf8')).toMatch(/made after/);
    },
  );
});
