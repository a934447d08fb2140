// The agent conformance suite (agent-conformance.ts) on every agent, started on this machine as its image starts
// it (Python: the host's python3 or SANDPIT_TEST_PYTHON; JavaScript: the Node running vitest or SANDPIT_TEST_NODE;
// R: the host's perl and R, as Debian's perl-base and r-base-core in the image — skipped, saying so, without R).
// Adding an agent is one entry here: how to start it and its snippets.
import { join } from 'node:path';
import { describeAgentConformance } from './agent-conformance';
import type { AgentUnderTest } from './agent-conformance';
import { spawnSync } from 'node:child_process';
import { spawnAgent } from './agent-client';

const AGENTS = join(import.meta.dirname, '..');
const PYTHON = process.env.SANDPIT_TEST_PYTHON ?? 'python3';
const NODE = process.env.SANDPIT_TEST_NODE ?? process.execPath;

/** The JavaScript agent needs real pipes on stdin/stdout/stderr (Node's child_process gives socketpairs). */
const PIPES = '{ cat | { "$@" 2>&4 >&3 3>&- 4>&-; } 4>&1 | cat >&2; } 3>&1 | cat';

function started(command: string[], env: Record<string, string | undefined>, detached = false): ReturnType<AgentUnderTest['start']> {
  const agent = spawnAgent(command, { workspacePrefix: 'sandpit-conformance-ws-', env: { SANDPIT_KILL_STRAYS: undefined, ...env }, detached });
  return { client: agent.client, stop: agent.stop, stderr: agent.stderr };
}

const python = (language?: string): AgentUnderTest['start'] => () => started([PYTHON, '-s', join(AGENTS, 'python/agent.py')], { SANDPIT_LANGUAGE: language });
const node = (language: string): AgentUnderTest['start'] => () =>
  started(['sh', '-c', PIPES, 'sh', NODE, join(AGENTS, 'javascript/main.js')], { SANDPIT_LANGUAGE: language, NODE_OPTIONS: undefined }, true);

const hasR = spawnSync('R', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasR) console.warn('agent conformance: the R agent is skipped, no R on this machine (apt-get install r-base-core)');

const js: AgentUnderTest['code'] = {
  print: (t) => `console.log(${JSON.stringify(t)})`,
  printErr: (t) => `console.error(${JSON.stringify(t)})`,
  printMany: (n) => `process.stdout.write('x'.repeat(${n}))`,
  sleep: (s) => `require('child_process').execFileSync('sleep', ['${s}'])`,
  fail: "throw new TypeError('conformance')",
  errorName: 'TypeError',
  writeFile: (p, t) => `require('fs').mkdirSync(require('path').dirname(${JSON.stringify(p)}), { recursive: true }); require('fs').writeFileSync(${JSON.stringify(p)}, ${JSON.stringify(t)})`,
  state: { set: 'var kept = 6 * 7', get: 'kept', value: '42' },
};

export const AGENTS_UNDER_TEST: Record<string, AgentUnderTest> = {
  python: {
    language: 'python',
    start: python(),
    code: {
      print: (t) => `print(${JSON.stringify(t)})`,
      printErr: (t) => `import sys; print(${JSON.stringify(t)}, file=sys.stderr)`,
      printMany: (n) => `import sys; sys.stdout.write('x' * ${n})`,
      sleep: (s) => `import time; time.sleep(${s})`,
      fail: "raise ValueError('conformance')",
      errorName: 'ValueError',
      writeFile: (p, t) => `import os; os.makedirs(os.path.dirname(${JSON.stringify(p)}), exist_ok=True); open(${JSON.stringify(p)}, 'w').write(${JSON.stringify(t)})`,
      state: { set: 'kept = 6 * 7', get: 'kept', value: '42' },
    },
  },
  bash: {
    language: 'bash',
    start: python('bash'),
    code: {
      print: (t) => `echo '${t}'`,
      printErr: (t) => `echo '${t}' >&2`,
      printMany: (n) => `head -c ${n} /dev/zero | tr '\\0' x`,
      sleep: (s) => `sleep ${s}`,
      fail: 'exit 3',
      errorName: 'CommandFailed',
      writeFile: (p, t) => `mkdir -p "$(dirname '${p}')" && printf '%s' '${t}' > '${p}'`,
      state: { set: 'KEPT=42', get: 'echo "[$KEPT]"', value: '[]' },
    },
  },
  javascript: { language: 'javascript', start: node('javascript'), code: js },
  // TypeScript runs on the JavaScript agent: the core removes the types before the code reaches it.
  typescript: { language: 'typescript', start: node('typescript'), code: js },
  r: {
    language: 'r',
    start: () => started(['perl', join(AGENTS, 'r/main.pl')], { SANDPIT_LANGUAGE: 'r' }, true),
    code: {
      print: (t) => `cat(${JSON.stringify(`${t}\n`)})`,
      printErr: (t) => `cat(${JSON.stringify(`${t}\n`)}, file = stderr())`,
      printMany: (n) => `cat(strrep("x", ${n}))`,
      sleep: (s) => `Sys.sleep(${s})`,
      fail: 'stop("conformance")',
      errorName: 'simpleError',
      writeFile: (p, t) => `dir.create(dirname(${JSON.stringify(p)}), recursive = TRUE, showWarnings = FALSE); cat(${JSON.stringify(t)}, file = ${JSON.stringify(p)})`,
      state: { set: 'kept <- 6 * 7', get: 'kept', value: '[1] 42' },
    },
  },
};

for (const [name, agent] of Object.entries(AGENTS_UNDER_TEST)) if (name !== 'r' || hasR) describeAgentConformance(name, agent);
