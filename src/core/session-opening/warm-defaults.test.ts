import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log';
import type { SessionManager } from '../sessions/session-manager';
import type { WarmTemplate } from '../sessions/warm-pools';
import type { EnvironmentServices } from './environment-services';
import { QUIET_AFTER_TAKE_OVER_MS, warmDefaultPools } from './warm-defaults';

/** Sessions that record each warm-up (which images, up to how many) and how many ran at once. */
function fakeSessions(): { sessions: SessionManager; calls: string[]; most: () => number } {
  const calls: string[] = [];
  let running = 0;
  let most = 0;
  const sessions = {
    pooling: true,
    taken: 0,
    /** Whether the last core left sandboxes (its record is there). */
    waiting: false,
    handedOverWaiting: async (): Promise<boolean> => (sessions as unknown as { waiting: boolean }).waiting,
    adoptHandedOver: async (templates: WarmTemplate[]): Promise<number> => {
      calls.push(`take over ${templates.map((t) => t.image).join('+')}`);
      return (sessions as unknown as { taken: number }).taken;
    },
    quiet: async (ms: number): Promise<void> => {
      calls.push(`quiet ${ms} ms`);
    },
    warmUp: async (templates: WarmTemplate[], upTo?: number): Promise<void> => {
      calls.push(`${templates.map((t) => t.image).join('+')}${upTo === undefined ? '' : ` ×${upTo}`}`);
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
    },
  } as unknown as SessionManager;
  return { sessions, calls, most: () => most };
}

/** Built-in environments, all built, each on its own image; `missing` ones are not built; `slow` ones take 50 ms to look up. */
function fakeEnvironments(missing: string[] = [], slow: string[] = [], calls?: string[]): EnvironmentServices {
  return {
    store: { get: async (id: string) => ({ id, language: id === 'node' ? 'javascript' : id }) },
    builder: {
      readyImage: async (env: { id: string }) => {
        if (slow.includes(env.id)) await new Promise((resolve) => setTimeout(resolve, 50));
        calls?.push(`looked up ${env.id}`);
        return missing.includes(env.id) ? undefined : `img-${env.id}`;
      },
      imageFor: async (id: string) => {
        calls?.push(`recorded ${id}`);
        return `img-${id}`;
      },
    },
    defaultIsolation: () => 'standard',
  } as unknown as EnvironmentServices;
}

describe('warmDefaultPools', () => {
  it("starts the default language's first sandbox alone, then each other language's first one after the other (JavaScript next), then fills each pool", async () => {
    const { sessions, calls, most } = fakeSessions();
    await warmDefaultPools({ sessions, environments: fakeEnvironments(), log: silentLogger });
    expect(calls).toEqual([
      // nothing left by the last core: the default language's first sandbox starts at once
      'img-python ×1',
      'take over img-python+img-node+img-bash+img-typescript+img-r',
      'img-node ×1',
      'img-bash ×1',
      'img-typescript ×1',
      'img-r ×1',
      'img-python',
      'img-node',
      'img-bash',
      'img-typescript',
      'img-r',
    ]);
    // never two warm-ups (container starts) at once
    expect(most()).toBe(1);
  });

  it('warms only the environments that are built, and nothing when pools are off', async () => {
    const { sessions, calls } = fakeSessions();
    await warmDefaultPools({ sessions, environments: fakeEnvironments(['r', 'typescript']), log: silentLogger });
    expect(calls).toEqual(['img-python ×1', 'take over img-python+img-node+img-bash', 'img-node ×1', 'img-bash ×1', 'img-python', 'img-node', 'img-bash']);
    const off = fakeSessions();
    (off.sessions as unknown as { pooling: boolean }).pooling = false;
    await warmDefaultPools({ sessions: off.sessions, environments: fakeEnvironments(), log: silentLogger });
    // nothing warmed, and nothing taken over (what the last core left goes to the reaper)
    expect(off.calls).toEqual(['take over ']);
  });

  it('says when the default language\'s first sandbox is up, before any other starts (the egress proxy starts then), and at once with pools off', async () => {
    const { sessions, calls } = fakeSessions();
    await warmDefaultPools({ sessions, environments: fakeEnvironments(), log: silentLogger, afterFirst: () => calls.push('after the first') });
    expect(calls.slice(0, 4)).toEqual(['img-python ×1', 'take over img-python+img-node+img-bash+img-typescript+img-r', 'after the first', 'img-node ×1']);
    const off = fakeSessions();
    (off.sessions as unknown as { pooling: boolean }).pooling = false;
    await warmDefaultPools({ sessions: off.sessions, environments: fakeEnvironments(), log: silentLogger, afterFirst: () => off.calls.push('after the first') });
    expect(off.calls).toEqual(['after the first', 'take over ']);
  });

  it("starts the default language's first sandbox without waiting for the other languages' look-ups, when the last core left nothing", async () => {
    const { sessions, calls } = fakeSessions();
    await warmDefaultPools({ sessions, environments: fakeEnvironments([], ['node', 'r'], calls), log: silentLogger });
    expect(calls.indexOf('img-python ×1')).toBeLessThan(calls.indexOf('looked up node'));
    expect(calls.indexOf('img-python ×1')).toBeLessThan(calls.indexOf('looked up r'));
    // what is taken over is still asked for every template, before any other language's sandbox starts
    expect(calls.indexOf('take over img-python+img-node+img-bash+img-typescript+img-r')).toBeLessThan(calls.indexOf('img-node ×1'));
  });

  it("records each warmed environment as ready while the default language's first sandbox starts, never one that is not built", async () => {
    const { sessions, calls } = fakeSessions();
    await warmDefaultPools({ sessions, environments: fakeEnvironments(['r'], [], calls), log: silentLogger, afterFirst: () => calls.push('after the first') });
    const recorded = calls.filter((c) => c.startsWith('recorded'));
    expect(recorded.sort()).toEqual(['recorded bash', 'recorded node', 'recorded python', 'recorded typescript']);
    // not before that sandbox was asked for, and all before any other language's sandbox starts
    expect(calls.indexOf('recorded python')).toBeGreaterThan(calls.indexOf('img-python ×1'));
    expect(calls.indexOf('recorded python')).toBeLessThan(calls.indexOf('after the first'));
    for (const id of ['bash', 'node', 'python', 'typescript']) expect(calls.indexOf(`recorded ${id}`)).toBeLessThan(calls.indexOf('img-node ×1'));
  });

  it('with sandboxes the last core left waiting, takes them over before its own first sandbox starts', async () => {
    const { sessions, calls } = fakeSessions();
    (sessions as unknown as { waiting: boolean }).waiting = true;
    await warmDefaultPools({ sessions, environments: fakeEnvironments([], ['node'], calls), log: silentLogger });
    expect(calls.filter((c) => !c.startsWith('looked up') && !c.startsWith('recorded')).slice(0, 2)).toEqual(['take over img-python+img-node+img-bash+img-typescript+img-r', 'img-python ×1']);
    expect(calls.indexOf('looked up node')).toBeLessThan(calls.indexOf('img-python ×1'));
  });

  it('after taking over what the last core left, starts nothing for a quiet moment (the first calls come then)', async () => {
    const { sessions, calls } = fakeSessions();
    (sessions as unknown as { taken: number }).taken = 3;
    (sessions as unknown as { waiting: boolean }).waiting = true;
    await warmDefaultPools({ sessions, environments: fakeEnvironments(), log: silentLogger, afterFirst: () => calls.push('after the first') });
    expect(calls.slice(0, 4)).toEqual(['take over img-python+img-node+img-bash+img-typescript+img-r', `quiet ${QUIET_AFTER_TAKE_OVER_MS} ms`, 'img-python ×1', 'after the first']);
  });
});
