import { afterEach, describe, expect, it, vi } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { MemoryBackend, promptMemoryAgent } from '../../test-support/memory-backend';
import { silentLogger } from '../log';
import { KILL_WAIT_MS, SandboxDriver } from './sandbox-driver';
import type { RunOutcome, RunRequest } from './run-outcome';

const GRACE_MS = 100;
const TIMEOUT_MS = 200;

function runtimeOn(backend: MemoryBackend, language: 'python' | 'javascript' | 'bash' = 'python'): SandboxDriver {
  return new SandboxDriver({
    backend,
    spec: { sessionId: 'ses-test', language, image: 'sandpit-fake:1', limits: DEFAULT_LIMITS, isolation: 'standard', pooled: false },
    log: silentLogger,
    startTimeoutMs: 5_000,
    graceMs: GRACE_MS,
  });
}

async function startedSession(backend: MemoryBackend): Promise<SandboxDriver> {
  const session = runtimeOn(backend);
  await session.start();
  return session;
}

function request(code = 'while True: pass'): RunRequest {
  return { executionId: 'run-1', code, timeoutMs: TIMEOUT_MS, outputLimit: 1024, onOutput: () => undefined, onDisplay: () => undefined };
}

/** Advances the fake clock in steps until the run settles or `budgetMs` of fake time has passed. */
async function settleWithin(run: Promise<RunOutcome>, budgetMs: number): Promise<{ settled: boolean; outcome?: RunOutcome; error?: unknown }> {
  let state: { settled: boolean; outcome?: RunOutcome; error?: unknown } = { settled: false };
  run.then(
    (outcome) => (state = { settled: true, outcome }),
    (error: unknown) => (state = { settled: true, error }),
  );
  for (let spent = 0; spent < budgetMs && !state.settled; spent += 50) await vi.advanceTimersByTimeAsync(50);
  return state;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SandboxDriver watchdog', () => {
  it('ends the run when the kill fails and the channel never closes, so the queue and the slot are freed', async () => {
    const engine = new MemoryBackend();
    const session = await startedSession(engine);
    engine.agent = (message, reply, spec) => (message.type === 'execute' ? undefined : promptMemoryAgent(message, reply, spec)); // runs for ever, ignores interrupts
    engine.override.kill = () => Promise.reject(new SandpitError('INTERNAL', 'Docker call "kill container" did not finish within 30000 ms'));
    engine.override.state = () => Promise.reject(new SandpitError('DOCKER_UNAVAILABLE', 'the engine does not answer'));
    vi.useFakeTimers();
    const result = await settleWithin(session.run(request()), TIMEOUT_MS + GRACE_MS + KILL_WAIT_MS + 1_000);
    expect(result.settled).toBe(true);
    expect(result.error).toMatchObject({ code: 'DOCKER_UNAVAILABLE' });
    expect(engine.calls).toContain('kill');
  });

  it('ends the run as a timeout and restarts the sandbox when the killed container\'s stream never ends', async () => {
    const engine = new MemoryBackend();
    const session = await startedSession(engine);
    engine.agent = (message, reply, spec) => (message.type === 'execute' ? undefined : promptMemoryAgent(message, reply, spec));
    // The container stops, but the engine never ends its attached stream.
    engine.override.kill = async () => engine.sandboxes.get('ses-test')?.stopKeepingStream(137);
    vi.useFakeTimers();
    const result = await settleWithin(session.run(request()), TIMEOUT_MS + GRACE_MS + KILL_WAIT_MS + 5_000);
    expect(result.settled).toBe(true);
    expect(result.outcome).toMatchObject({ status: 'timeout', stateLost: true });
    expect(result.outcome?.message).toMatch(/time limit/);
    expect(session.connected).toBe(true);
  });
});

describe("SandboxDriver: the agent's hello", () => {
  it('refuses an agent that answers as another language than the session asked for, naming both', async () => {
    const engine = new MemoryBackend();
    // An image whose agent is the Python one, asked to run a bash session (an agent without a bash mode answers python).
    engine.agent = (message, reply, spec) => promptMemoryAgent(message, reply, { ...spec, language: 'python' });
    const runtime = runtimeOn(engine, 'bash');
    await expect(runtime.start()).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: 'The sandbox image sandpit-fake:1 runs Python, not Bash: a Bash session needs an image made for Bash. Choose an environment (or base) of that language.',
    });
    await runtime.remove();
  });

  it('starts when the agent answers as the language the session asked for', async () => {
    const engine = new MemoryBackend();
    const runtime = runtimeOn(engine, 'javascript');
    await runtime.start();
    await runtime.remove();
  });
});

describe('SandboxDriver timeout status', () => {
  it('says timeout when the code caught the interrupt and returned within the grace period', async () => {
    const engine = new MemoryBackend();
    const session = await startedSession(engine);
    engine.agent = (message, reply, spec) => {
      if (message.type === 'interrupt') reply({ type: 'done', id: message.id, status: 'ok', durationMs: TIMEOUT_MS });
      else if (message.type !== 'execute') promptMemoryAgent(message, reply, spec);
    };
    vi.useFakeTimers();
    const result = await settleWithin(session.run(request('try:\n    while True: pass\nexcept KeyboardInterrupt:\n    pass')), TIMEOUT_MS + GRACE_MS);
    expect(result.outcome).toMatchObject({ status: 'timeout', stateLost: false });
    expect(result.outcome?.message).toMatch(/time limit/);
    expect(engine.calls).not.toContain('kill');
  });

  it('keeps ok for a run that finished before the time limit', async () => {
    const engine = new MemoryBackend();
    const session = await startedSession(engine);
    const outcome = await session.run(request('1 + 1'));
    expect(outcome).toMatchObject({ status: 'ok', stateLost: false });
    expect(outcome.message).toBeUndefined();
  });
});
