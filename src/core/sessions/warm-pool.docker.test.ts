import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../util/with-timeout';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

describe('warm pool', () => {
  let sp: TestSandpit;
  beforeAll(async () => {
    sp = await startTestSandpit({ poolSize: 2 });
  });
  afterAll(async () => sp?.cleanup());

  // Every language with an image has a pool (python, javascript, bash): these tests use python's.
  const pythonReady = (): number => sp.sessions.poolStatus().find((p) => p.key.startsWith('["python",'))?.ready ?? 0;
  const running = async (): Promise<number> => {
    const managed = await sp.docker.listContainers({ 'dev.sandpit.instance': sp.identity.instanceId });
    return managed.filter((c) => c.state === 'running').length;
  };

  it('keeps N ready containers, hands one out, refills, and never reuses a container', async () => {
    await pollUntil(() => (pythonReady() >= 2 ? true : undefined), 60_000, 'pool filled');
    const before = await running();
    const a = await newSession(sp, {});
    expect(a.fromPool).toBe(true);
    expect((await sp.sessions.session(a.id).execute('1 + 1')).result).toBe('2');
    // Refilled in the background: one more container running (the session), two ready again.
    await pollUntil(async () => (pythonReady() >= 2 && (await running()) >= before + 1 ? true : undefined), 60_000, 'pool refilled');
    await sp.sessions.stop(a.id);
    const b = await newSession(sp, {});
    expect(b.fromPool).toBe(true);
    expect(b.containerId).not.toBe(a.containerId);
    expect(b.id).not.toBe(a.id);
    expect((await sp.sessions.session(b.id).execute("'x' in globals()")).result).toBe('False');
    // The stopped session's container is gone for good.
    const all = await sp.docker.listContainers({ 'dev.sandpit.managed': 'true' });
    expect(all.map((c) => c.id)).not.toContain(a.containerId);
  });

  it('starts cold when a session asks for different limits', async () => {
    const s = await newSession(sp, { limits: { memoryMb: 300 } });
    expect(s.fromPool).toBe(false);
    expect(s.limits.memoryMb).toBe(300);
  });
});
