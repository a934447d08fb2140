/**
 * npm test: every check a change must pass, in order — lint, typecheck, vitest (all projects), and
 * Playwright when playwright.config.ts exists. Each step streams its output; all steps run even when
 * one fails. Outcomes go to reports/steps.json; the last line printed is `N passed, N failed[, N skipped]`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { printSummary, summarize } from './summarize-reports.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const reports = join(root, 'reports');
const STEP_TIMEOUT_MS = Number(process.env.SANDPIT_TEST_STEP_TIMEOUT_MS) || 60 * 60_000;

/** A package binary from node_modules/.bin, run with this Node (not whatever `node` is first on PATH). */
function bin(name) {
  return join(root, 'node_modules', '.bin', name);
}

/** One vitest project as its own step with its own JSON report. */
function vitestStep(project) {
  const report = join(reports, `vitest-${project}.json`);
  return {
    name: `vitest ${project}`,
    kind: 'vitest',
    report,
    argv: [bin('vitest'), 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
  };
}

const steps = [
  { name: 'lint', kind: 'check', argv: [bin('eslint'), '.'] },
  { name: 'typecheck', kind: 'check', argv: [bin('tsc'), '-p', 'tsconfig.json', '--noEmit'] },
  // `npm run build` must work, and the e2e specs drive the built panel.
  { name: 'build', kind: 'check', argv: [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'] },
  { name: 'build cli', kind: 'check', argv: [join(root, 'scripts', 'build-cli.mjs')] },
  // Unit tests first and on their own: their results count even where Docker is missing.
  vitestStep('unit'),
  vitestStep('docker'),
];
if (existsSync(join(root, 'playwright.config.ts'))) {
  const report = join(reports, 'playwright.json');
  steps.push({
    name: 'playwright',
    kind: 'playwright',
    report,
    argv: [bin('playwright'), 'test', '--reporter=list,json'],
    env: { PLAYWRIGHT_JSON_OUTPUT_FILE: report, PLAYWRIGHT_JSON_OUTPUT_NAME: report },
  });
}

/** Runs one step with inherited stdio; resolves to its exit code (null: could not start, or killed). */
function run(step) {
  return new Promise((resolveExit) => {
    const child = spawn(process.execPath, step.argv, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...step.env },
    });
    let killTimer;
    const timer = setTimeout(() => {
      process.stderr.write(`\n${step.name} did not finish within ${STEP_TIMEOUT_MS / 1000} s: stopping it\n`);
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    }, STEP_TIMEOUT_MS);
    child.once('error', (error) => {
      process.stderr.write(`${step.name}: could not start: ${error.message}\n`);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      resolveExit(code);
    });
  });
}

mkdirSync(reports, { recursive: true });
const recorded = [];
const save = () => writeFileSync(join(reports, 'steps.json'), `${JSON.stringify({ steps: recorded }, null, 2)}\n`);
save();
for (const step of steps) {
  if (step.report) rmSync(step.report, { force: true }); // never count a stale report
  const command = step.argv.map((a, i) => (i === 0 ? a.slice(a.lastIndexOf('/') + 1) : a)).join(' ');
  process.stdout.write(`\n==> ${step.name}: ${command}\n`);
  const started = Date.now();
  const exitCode = await run(step);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  process.stdout.write(`==> ${step.name}: ${exitCode === 0 ? 'ok' : `FAILED (exit ${exitCode})`} in ${seconds} s\n`);
  recorded.push({ name: step.name, kind: step.kind, exitCode, report: step.report, seconds });
  save();
}

const summary = summarize(recorded);
process.stdout.write('\n');
printSummary(summary);
process.exitCode = summary.failed > 0 || recorded.some((s) => s.exitCode !== 0) ? 1 : 0;
