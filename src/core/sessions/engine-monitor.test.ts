import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineStatus } from '../../shared/domain/engine';
import { SandpitError } from '../../shared/api/errors';
import { MemoryBackend } from '../../test-support/memory-backend';
import { silentLogger } from '../log';
import type { Logger } from '../log';
import type { BackendEndpoint, EngineInfo } from '../sandbox/sandbox-backend';
import { EngineMonitor } from './engine-monitor';

const DOWN_MESSAGE = 'Docker is not running or not reachable at /var/run/docker.sock.';
const VERSION: EngineInfo = { product: 'docker', version: '27.3.1', apiVersion: '1.47', os: 'linux', runtimes: ['runc', 'runsc'] };
const FIX = 'The in-memory engine is down because the test said so.';

/** The in-memory engine, down for its first `failures` pings; it records when it was pinged. */
function engineDownFor(failures: number, endpoint?: BackendEndpoint): { engine: MemoryBackend; pings: number[]; setFailures: (n: number) => void } {
  const engine = new MemoryBackend();
  engine.info = VERSION;
  if (endpoint) engine.endpoint = endpoint;
  const pings: number[] = [];
  let left = failures;
  const answer = engine.ping.bind(engine);
  engine.ping = () => {
    pings.push(Date.now());
    engine.down = left > 0 ? new SandpitError('DOCKER_UNAVAILABLE', DOWN_MESSAGE) : undefined;
    if (left > 0) left -= 1;
    return answer();
  };
  return { engine, pings, setFailures: (n) => (left = n) };
}

function recordChanges(monitor: EngineMonitor): EngineStatus[] {
  const changes: EngineStatus[] = [];
  monitor.onChange((s) => changes.push(s));
  return changes;
}

function thrown(run: () => void): SandpitError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SandpitError);
    return error as SandpitError;
  }
  throw new Error('expected a throw');
}

let monitor: EngineMonitor | undefined;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  monitor?.dispose();
  monitor = undefined;
  vi.useRealTimers();
});

describe('EngineMonitor', () => {
  it('starts as connecting and refuses work until the engine is up', () => {
    monitor = new EngineMonitor(engineDownFor(0).engine, silentLogger);
    expect(monitor.current).toEqual({ state: 'connecting', endpoint: 'memory' });
    const error = thrown(() => monitor?.assertUp());
    expect(error.code).toBe('DOCKER_UNAVAILABLE');
    expect(error.message).toContain(FIX);
  });

  it('is up with the product, version and runtimes after a successful ping', async () => {
    monitor = new EngineMonitor(engineDownFor(0).engine, silentLogger);
    const status = await monitor.check();
    expect(status).toEqual({
      state: 'up',
      endpoint: 'memory',
      version: '27.3.1',
      product: 'docker',
      runtimes: ['runc', 'runsc'],
    });
    expect(monitor.current).toEqual(status);
    expect(() => monitor?.assertUp()).not.toThrow();
  });

  it('is down with the reason and a fix after a failed ping, and assertUp says both', async () => {
    monitor = new EngineMonitor(engineDownFor(1).engine, silentLogger);
    const status = await monitor.check();
    expect(status).toEqual({
      state: 'down',
      endpoint: 'memory',
      message: DOWN_MESSAGE,
      fix: FIX,
    });
    const error = thrown(() => monitor?.assertUp());
    expect(error.code).toBe('DOCKER_UNAVAILABLE');
    expect(error.message).toBe(`${DOWN_MESSAGE} ${FIX}`);
  });

  it('reconnects with back-off: down → up, notifying each change once and running the up hooks', async () => {
    const { engine, pings } = engineDownFor(2);
    monitor = new EngineMonitor(engine, silentLogger);
    const changes = recordChanges(monitor);
    const hook = vi.fn(() => Promise.resolve());
    monitor.onUp(hook);
    const t0 = Date.now();

    await monitor.check();
    expect(monitor.current.state).toBe('down');
    await vi.advanceTimersByTimeAsync(499);
    expect(pings).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1); // 500 ms: second try, fails again
    expect(pings).toHaveLength(2);
    expect(monitor.current.state).toBe('down');
    await vi.advanceTimersByTimeAsync(999);
    expect(pings).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1); // 1000 ms later: third try succeeds
    expect(pings.map((t) => t - t0)).toEqual([0, 500, 1500]);
    expect(monitor.current.state).toBe('up');

    expect(changes.map((c) => c.state)).toEqual(['down', 'up']);
    expect(hook).toHaveBeenCalledTimes(1);

    // Once up it stops retrying.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(pings).toHaveLength(3);
  });

  it('doubles the back-off up to 30 s', async () => {
    const { engine, pings } = engineDownFor(Number.MAX_SAFE_INTEGER);
    monitor = new EngineMonitor(engine, silentLogger);
    await monitor.check();
    await vi.advanceTimersByTimeAsync(500 + 1_000 + 2_000 + 4_000 + 8_000 + 16_000 + 30_000 + 30_000);
    const gaps = pings.slice(1).map((t, i) => t - (pings[i] ?? 0));
    expect(gaps).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });

  it('starts the back-off over after the engine was up again', async () => {
    const { engine, pings, setFailures } = engineDownFor(1);
    monitor = new EngineMonitor(engine, silentLogger);
    await monitor.check();
    await vi.advanceTimersByTimeAsync(500);
    expect(monitor.current.state).toBe('up');

    setFailures(0);
    monitor.markDown('the event stream ended');
    const lostAt = Date.now();
    await vi.advanceTimersByTimeAsync(500);
    expect(pings.at(-1)).toBe(lostAt + 500);
    expect(monitor.current.state).toBe('up');
  });

  it('a check that finds the engine up drops the retry planned while it was down: the next loss is retried after 500 ms', async () => {
    // Down long enough for the next retry to be 16 s away; then it answers a check asked for (a new address, "Check again").
    const { engine, pings, setFailures } = engineDownFor(Number.MAX_SAFE_INTEGER);
    monitor = new EngineMonitor(engine, silentLogger);
    await monitor.check();
    await vi.advanceTimersByTimeAsync(500 + 1_000 + 2_000 + 4_000 + 8_000);
    setFailures(0);
    await vi.advanceTimersByTimeAsync(1_000);
    await monitor.check();
    expect(monitor.current.state).toBe('up');

    // A run fails with DOCKER_UNAVAILABLE (one slow call): the engine is checked again half a second later.
    monitor.markDown('Docker call "start the container" did not finish within 30000 ms');
    const lostAt = Date.now();
    await vi.advanceTimersByTimeAsync(500);
    expect(pings.at(-1)).toBe(lostAt + 500);
    expect(monitor.current.state).toBe('up');
    // And nothing else was left planned.
    const seen = pings.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(pings).toHaveLength(seen);
  });

  it('schedules one reconnect however often it is told the engine is down', async () => {
    const { engine, pings } = engineDownFor(0);
    monitor = new EngineMonitor(engine, silentLogger);
    monitor.markDown('lost');
    monitor.markDown('lost');
    monitor.markDown('lost again');
    await vi.advanceTimersByTimeAsync(500);
    expect(pings).toHaveLength(1);
    expect(monitor.current.state).toBe('up');
  });

  it('notifies a change of the reason while down, but not a repeat of the same status', () => {
    const { engine } = engineDownFor(0);
    monitor = new EngineMonitor(engine, silentLogger);
    const changes = recordChanges(monitor);
    monitor.markDown('lost');
    monitor.markDown('lost');
    monitor.markDown('refused');
    expect(changes.map((c) => c.message)).toEqual(['lost', 'refused']);
  });

  it('runs the up hooks on every return of the engine, not on every successful check', async () => {
    const { engine } = engineDownFor(0);
    monitor = new EngineMonitor(engine, silentLogger);
    const hook = vi.fn(() => Promise.resolve());
    monitor.onUp(hook);
    await monitor.check();
    await monitor.check();
    expect(hook).toHaveBeenCalledTimes(1);
    monitor.markDown('lost');
    await vi.advanceTimersByTimeAsync(500);
    expect(hook).toHaveBeenCalledTimes(2);
  });

  it('stays up and logs when an up hook fails', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    monitor = new EngineMonitor(engineDownFor(0).engine, log);
    const later = vi.fn(() => Promise.resolve());
    monitor.onUp(() => Promise.reject(new Error('events failed')));
    monitor.onUp(later);
    const status = await monitor.check();
    expect(status.state).toBe('up');
    expect(later).toHaveBeenCalledTimes(1);
    expect(warnings).toEqual(['engine-up hook failed']);
  });

  it('stops reconnecting once disposed', async () => {
    const { engine, pings } = engineDownFor(1);
    monitor = new EngineMonitor(engine, silentLogger);
    await monitor.check();
    monitor.dispose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(pings).toHaveLength(1);
    monitor.markDown('after dispose');
    expect(monitor.current.message).toBe(DOWN_MESSAGE);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("names the engine's address and how it was found, up or down, with the engine's own fix", async () => {
    const remote: BackendEndpoint = { kind: 'remote', address: 'tcp://build-box:2376', source: 'DOCKER_HOST' };
    const { engine } = engineDownFor(1, remote);
    monitor = new EngineMonitor(engine, silentLogger);
    await monitor.check();
    expect(monitor.current).toEqual({ state: 'down', endpoint: 'tcp://build-box:2376', source: 'DOCKER_HOST', message: DOWN_MESSAGE, fix: FIX });
    await vi.advanceTimersByTimeAsync(500);
    expect(monitor.current).toMatchObject({ state: 'up', endpoint: 'tcp://build-box:2376', source: 'DOCKER_HOST' });
  });
});
