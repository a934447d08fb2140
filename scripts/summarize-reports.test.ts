import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countStep, formatSummary, summarize } from './summarize-reports.mjs';
import type { Step } from './summarize-reports.mjs';

const reports: Record<string, unknown> = {
  'vitest.json': { numPassedTests: 40, numFailedTests: 2, numPendingTests: 3, numTodoTests: 1, success: false },
  'vitest-green.json': { numPassedTests: 10, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, success: true },
  'playwright.json': { stats: { expected: 5, unexpected: 1, skipped: 2, flaky: 1 } },
};
const read = (path: string): unknown => reports[path];

describe('countStep', () => {
  it('counts a check as one test', () => {
    expect(countStep({ name: 'lint', kind: 'check', exitCode: 0 }, read)).toMatchObject({ passed: 1, failed: 0 });
    expect(countStep({ name: 'typecheck', kind: 'check', exitCode: 2 }, read)).toMatchObject({ passed: 0, failed: 1 });
  });

  it('reads vitest: passed, failed, pending + todo as skipped', () => {
    expect(countStep({ name: 'vitest', kind: 'vitest', exitCode: 1, report: 'vitest.json' }, read)).toMatchObject({
      passed: 40,
      failed: 2,
      skipped: 4,
    });
  });

  it('reads playwright stats: expected + flaky passed, unexpected failed', () => {
    expect(countStep({ name: 'e2e', kind: 'playwright', exitCode: 1, report: 'playwright.json' }, read)).toMatchObject({
      passed: 6,
      failed: 1,
      skipped: 2,
    });
  });

  it('counts a runner without a report as 1 failed', () => {
    expect(countStep({ name: 'vitest', kind: 'vitest', exitCode: 1, report: 'missing.json' }, read)).toMatchObject({
      passed: 0,
      failed: 1,
    });
    expect(countStep({ name: 'vitest', kind: 'vitest', exitCode: null }, read)).toMatchObject({ failed: 1 });
  });

  it('counts a test file that failed outside its tests (import, beforeAll) as 1 failed', () => {
    const report = {
      numPassedTests: 3,
      numFailedTests: 1,
      numPendingTests: 5,
      numTodoTests: 0,
      testResults: [
        { status: 'passed', assertionResults: [{ status: 'passed' }, { status: 'passed' }] },
        { status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'failed' }] },
        { status: 'failed', assertionResults: [{ status: 'skipped' }, { status: 'skipped' }, { status: 'skipped' }] },
        { status: 'failed', assertionResults: [{ status: 'skipped' }, { status: 'skipped' }] },
      ],
    };
    const count = countStep({ name: 'vitest', kind: 'vitest', exitCode: 1, report: 'r.json' }, () => report);
    expect(count).toMatchObject({ passed: 3, failed: 3, skipped: 5 });
    expect(count.note).toMatch(/2 file\(s\) failed outside a test/);
  });

  it('names each failed test with the first line of its error, so the end of a cut log still says what failed', () => {
    const vitest = {
      numPassedTests: 1,
      numFailedTests: 1,
      testResults: [
        {
          name: `${process.cwd()}/src/a.test.ts`,
          status: 'failed',
          assertionResults: [
            { status: 'passed', fullName: 'A works' },
            {
              status: 'failed',
              fullName: 'A refuses',
              failureMessages: ['\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n    at x'],
            },
          ],
        },
        {
          name: '/elsewhere/b.test.ts',
          status: 'failed',
          message: 'Error: Cannot find module x\nstack',
          assertionResults: [],
        },
      ],
    };
    expect(countStep({ name: 'vitest', kind: 'vitest', exitCode: 1, report: 'v' }, () => vitest).failures).toEqual([
      'src/a.test.ts › A refuses: AssertionError: expected 1 to be 2',
      '/elsewhere/b.test.ts (outside a test): Error: Cannot find module x',
    ]);
    const playwright = {
      stats: { expected: 1, unexpected: 1 },
      suites: [
        {
          suites: [
            {
              specs: [
                { file: 'e2e/web/a.spec.ts', line: 4, title: 'shows it', tests: [{ status: 'expected' }] },
                {
                  file: 'e2e/web/a.spec.ts',
                  line: 9,
                  title: 'says so',
                  tests: [
                    {
                      status: 'unexpected',
                      results: [
                        { error: { message: 'first try' } },
                        { error: { message: 'Timeout 5000ms exceeded.\nmore' } },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    expect(countStep({ name: 'e2e', kind: 'playwright', exitCode: 1, report: 'p' }, () => playwright).failures).toEqual(
      ['e2e/web/a.spec.ts:9 › says so: Timeout 5000ms exceeded.'],
    );
  });

  it('adds 1 failed when the runner failed but its report shows no failed test', () => {
    const count = countStep({ name: 'vitest', kind: 'vitest', exitCode: 1, report: 'vitest-green.json' }, read);
    expect(count).toMatchObject({ passed: 10, failed: 1 });
    expect(count.note).toMatch(/crash or setup error/);
  });
});

describe('summarize', () => {
  it('sums every step into one line', () => {
    const steps: Step[] = [
      { name: 'lint', kind: 'check', exitCode: 0 },
      { name: 'typecheck', kind: 'check', exitCode: 1 },
      { name: 'vitest', kind: 'vitest', exitCode: 1, report: 'vitest.json' },
      { name: 'playwright', kind: 'playwright', exitCode: 1, report: 'playwright.json' },
    ];
    const summary = summarize(steps, read);
    expect(summary.line).toBe('47 passed, 4 failed, 6 skipped');
    expect(summary.perStep.map((s) => s.name)).toEqual(['lint', 'typecheck', 'vitest', 'playwright']);
  });

  it('leaves skipped out when there are none', () => {
    expect(formatSummary({ passed: 3, failed: 0, skipped: 0 })).toBe('3 passed, 0 failed');
  });
});

describe('the CLI', () => {
  const script = resolve(import.meta.dirname, 'summarize-reports.mjs');

  function runCli(args: string[]): { status: number; stdout: string } {
    try {
      return { status: 0, stdout: execFileSync(process.execPath, [script, ...args], { encoding: 'utf8' }) };
    } catch (error) {
      const e = error as { status: number; stdout: string };
      return { status: e.status, stdout: e.stdout };
    }
  }

  it('prints the summary line last and exits 1 on failures', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpit-reports-'));
    try {
      writeFileSync(join(dir, 'vitest.json'), JSON.stringify(reports['vitest-green.json']));
      writeFileSync(
        join(dir, 'steps.json'),
        JSON.stringify({
          steps: [
            { name: 'lint', kind: 'check', exitCode: 0 },
            { name: 'vitest', kind: 'vitest', exitCode: 0, report: join(dir, 'vitest.json') },
          ],
        }),
      );
      const green = runCli(['--steps', join(dir, 'steps.json')]);
      expect(green.status).toBe(0);
      expect(green.stdout.trimEnd().split('\n').at(-1)).toBe('11 passed, 0 failed');

      const red = runCli(['--steps', join(dir, 'steps.json'), '--check', 'build-images=1']);
      expect(red.status).toBe(1);
      expect(red.stdout.trimEnd().split('\n').at(-1)).toBe('11 passed, 1 failed');

      writeFileSync(
        join(dir, 'vitest.json'),
        JSON.stringify({
          numPassedTests: 0,
          numFailedTests: 1,
          testResults: [
            {
              name: 'x.test.ts',
              status: 'failed',
              assertionResults: [{ status: 'failed', fullName: 'X', failureMessages: ['boom'] }],
            },
          ],
        }),
      );
      const named = runCli(['--steps', join(dir, 'steps.json')])
        .stdout.trimEnd()
        .split('\n');
      expect(named.at(-1)).toBe('1 passed, 1 failed');
      expect(named).toContain('    failed: x.test.ts › X: boom');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts a missing steps file as 1 failed', () => {
    const out = runCli(['--steps', join(tmpdir(), 'sandpit-no-such-steps.json')]);
    expect(out.status).toBe(1);
    expect(out.stdout.trimEnd().split('\n').at(-1)).toBe('0 passed, 1 failed');
  });
});
