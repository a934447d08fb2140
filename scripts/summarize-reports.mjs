/* eslint-disable @typescript-eslint/explicit-module-boundary-types -- plain JS: the types are in summarize-reports.d.mts */
/**
 * Sums the outcome of `npm test`'s steps into one plain line: `N passed, N failed[, N skipped]`.
 *
 * A step is one of:
 *  - `check`      (lint, typecheck, build …): one test, passed when it exited 0;
 *  - `vitest`     its JSON report: numPassedTests / numFailedTests / numPendingTests + numTodoTests, plus
 *                 1 failed per test file that failed with no failed test in it (an import or beforeAll
 *                 error: vitest then reports that file's tests as skipped);
 *  - `playwright` its JSON report's stats: expected + flaky / unexpected / skipped.
 * A runner without a readable report counts as 1 failed; a runner that exited non-zero although its
 * report has no failed test (a crash, a globalSetup error, unhandled errors) adds 1 failed.
 *
 * CLI (used by .ci/run): node scripts/summarize-reports.mjs [--steps reports/steps.json] [--check NAME=EXITCODE]…
 * prints one line per step, then the summary line last; exits 1 when anything failed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @param {string} path */
export function readJsonReport(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

const MAX_NAMED_FAILURES = 20;

/** The first line of an error message, without colour codes, at most 300 characters. */
function firstLine(text) {
  // eslint-disable-next-line no-control-regex -- colour codes are what this removes
  const plain = String(text ?? '').replace(/\u001b\[[0-9;]*m/g, '');
  const line = plain.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, 300);
}

/** A report's file path, relative to the project when it is inside it. */
function shortPath(path) {
  const text = String(path ?? '');
  const cwd = `${process.cwd()}/`;
  return text.startsWith(cwd) ? text.slice(cwd.length) : text;
}

/** Names of the failed tests of a vitest JSON report, each with the first line of its error. */
function vitestFailures(report) {
  const names = [];
  for (const file of Array.isArray(report.testResults) ? report.testResults : []) {
    const results = Array.isArray(file?.assertionResults) ? file.assertionResults : [];
    const failedTests = results.filter((a) => a?.status === 'failed');
    for (const test of failedTests) {
      const message = Array.isArray(test.failureMessages) ? test.failureMessages[0] : '';
      names.push(`${shortPath(file.name)} › ${test.fullName ?? test.title ?? '?'}: ${firstLine(message)}`);
    }
    if (file?.status === 'failed' && failedTests.length === 0) {
      names.push(`${shortPath(file.name)} (outside a test): ${firstLine(file.message)}`);
    }
  }
  return names;
}

/** Names of the tests a Playwright JSON report counts as unexpected, each with the first line of its error. */
function playwrightFailures(report) {
  const names = [];
  const visit = (suite) => {
    for (const spec of Array.isArray(suite?.specs) ? suite.specs : []) {
      for (const test of Array.isArray(spec?.tests) ? spec.tests : []) {
        if (test?.status !== 'unexpected') continue;
        const results = Array.isArray(test.results) ? test.results : [];
        const last = results[results.length - 1];
        const where = `${spec.file ?? '?'}:${spec.line ?? '?'}`;
        names.push(`${where} › ${spec.title ?? '?'}: ${firstLine(last?.error?.message)}`);
      }
    }
    for (const child of Array.isArray(suite?.suites) ? suite.suites : []) visit(child);
  };
  for (const suite of Array.isArray(report.suites) ? report.suites : []) visit(suite);
  return names;
}

/** @param {unknown} value */
function count(value) {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * @param {import('./summarize-reports.d.mts').Step} step
 * @param {(path: string) => unknown} readReport
 * @returns {import('./summarize-reports.d.mts').StepCount}
 */
export function countStep(step, readReport = readJsonReport) {
  const exitedOk = step.exitCode === 0;
  if (step.kind === 'check') {
    return {
      name: step.name,
      passed: exitedOk ? 1 : 0,
      failed: exitedOk ? 0 : 1,
      skipped: 0,
      note: exitedOk ? 'ok' : `exit ${step.exitCode}`,
      failures: [],
    };
  }
  const report = step.report ? readReport(step.report) : undefined;
  if (!report || typeof report !== 'object') {
    return {
      name: step.name,
      passed: 0,
      failed: 1,
      skipped: 0,
      note: `no report${step.exitCode === 0 ? '' : ` (exit ${step.exitCode})`}`,
      failures: [],
    };
  }
  let passed;
  let failed;
  let skipped;
  let brokenFiles = 0;
  let failures;
  if (step.kind === 'vitest') {
    failures = vitestFailures(report);
    passed = count(report.numPassedTests);
    failed = count(report.numFailedTests);
    skipped = count(report.numPendingTests) + count(report.numTodoTests);
    // A file whose import or beforeAll failed reports its tests as skipped: count the file as 1 failed.
    const files = Array.isArray(report.testResults) ? report.testResults : [];
    brokenFiles = files.filter(
      (f) =>
        f?.status === 'failed' &&
        !(Array.isArray(f.assertionResults) && f.assertionResults.some((a) => a?.status === 'failed')),
    ).length;
    failed += brokenFiles;
  } else {
    failures = playwrightFailures(report);
    const stats = report.stats ?? {};
    passed = count(stats.expected) + count(stats.flaky);
    failed = count(stats.unexpected);
    skipped = count(stats.skipped);
  }
  let note = exitedOk ? 'ok' : `exit ${step.exitCode}`;
  if (brokenFiles > 0) note += `; ${brokenFiles} file(s) failed outside a test (import or hook): 1 failed each`;
  if (!exitedOk && failed === 0) {
    failed = 1;
    note = `exit ${step.exitCode} without a failed test (crash or setup error): counted as 1 failed`;
  }
  return { name: step.name, passed, failed, skipped, note, failures };
}

/** @param {{ passed: number, failed: number, skipped: number }} totals */
export function formatSummary({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

/**
 * @param {import('./summarize-reports.d.mts').Step[]} steps
 * @param {(path: string) => unknown} readReport
 * @returns {import('./summarize-reports.d.mts').Summary}
 */
export function summarize(steps, readReport = readJsonReport) {
  const perStep = steps.map((step) => countStep(step, readReport));
  const totals = perStep.reduce(
    (t, s) => ({ passed: t.passed + s.passed, failed: t.failed + s.failed, skipped: t.skipped + s.skipped }),
    {
      passed: 0,
      failed: 0,
      skipped: 0,
    },
  );
  return { ...totals, perStep, line: formatSummary(totals) };
}

/**
 * One line per step, each failed test named under its step (at most 20 per step: the end of a long log is
 * often all a reader gets), then the summary line last.
 * @param {import('./summarize-reports.d.mts').Summary} summary
 */
export function printSummary(summary, write = (text) => process.stdout.write(text)) {
  for (const s of summary.perStep) {
    write(
      `  ${s.name}: ${s.passed} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ''} (${s.note})\n`,
    );
    const failures = s.failures ?? [];
    for (const name of failures.slice(0, MAX_NAMED_FAILURES)) write(`    failed: ${name}\n`);
    if (failures.length > MAX_NAMED_FAILURES) write(`    … and ${failures.length - MAX_NAMED_FAILURES} more\n`);
  }
  write(`${summary.line}\n`);
}

function cli(argv) {
  let stepsFile = 'reports/steps.json';
  /** @type {import('./summarize-reports.d.mts').Step[]} */
  const extra = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--steps') stepsFile = argv[++i] ?? stepsFile;
    else if (arg === '--check') {
      const [name, code] = (argv[++i] ?? '').split('=');
      extra.push({
        name: name || 'check',
        kind: 'check',
        exitCode: code === undefined || code === '' ? null : Number(code),
      });
    } else {
      process.stderr.write(`summarize-reports: unknown argument ${arg}\n`);
      return 2;
    }
  }
  const recorded = readJsonReport(stepsFile);
  const steps = Array.isArray(recorded?.steps)
    ? recorded.steps
    : [{ name: `npm test (no ${stepsFile})`, kind: 'check', exitCode: null }];
  const summary = summarize([...extra, ...steps]);
  printSummary(summary);
  return summary.failed > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = cli(process.argv.slice(2));
}
