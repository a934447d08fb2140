import { describe, expect, it, vi } from 'vitest';
import type { Limits } from '../../shared/domain/limits';
import type { Settings } from '../../shared/domain/settings';
import { defaultConfig } from '../config';
import type { SandpitConfig } from '../config';
import { applyLiveSettings } from './live-settings';
import { settingsFromConfig } from './settings-config';

function targets(): {
  config: SandpitConfig;
  setPoolSize: ReturnType<typeof vi.fn<(size: number) => void>>;
  setDefaultLimits: ReturnType<typeof vi.fn<(limits: Limits) => void>>;
  setAllowed: ReturnType<typeof vi.fn<(urls: string[], extraHosts: string[]) => void>>;
  apply(next: Settings, previous: Settings): void;
} {
  const config = defaultConfig({ poolSize: 2 });
  const setPoolSize = vi.fn<(size: number) => void>();
  const setDefaultLimits = vi.fn<(limits: Limits) => void>();
  const setAllowed = vi.fn<(urls: string[], extraHosts: string[]) => void>();
  return {
    config,
    setPoolSize,
    setDefaultLimits,
    setAllowed,
    apply: (next, previous) => applyLiveSettings(next, previous, { config, sessions: { setPoolSize, setDefaultLimits }, egress: { setAllowed } }),
  };
}

describe('applyLiveSettings', () => {
  const before: Settings = settingsFromConfig(defaultConfig({ poolSize: 2 }));

  it('resizes pools, sets default limits and the egress allow-list, and writes them into the config', () => {
    const t = targets();
    t.apply(
      {
        ...before,
        poolSize: 0,
        defaultLimits: { ...before.defaultLimits, memoryMb: 1024 },
        egress: { pipIndexUrl: 'http://mirror.local/simple', npmRegistryUrl: before.egress.npmRegistryUrl, cranRepositoryUrl: before.egress.cranRepositoryUrl, extraHosts: ['files.mirror.local'] },
      },
      before,
    );
    expect(t.setPoolSize).toHaveBeenCalledWith(0);
    expect(t.setDefaultLimits).toHaveBeenCalledWith(expect.objectContaining({ memoryMb: 1024, cpus: 1 }));
    expect(t.setAllowed).toHaveBeenCalledWith(['http://mirror.local/simple', before.egress.npmRegistryUrl, before.egress.cranRepositoryUrl], ['files.mirror.local']);
    expect(t.config).toMatchObject({ poolSize: 0, pipIndexUrl: 'http://mirror.local/simple', egressExtraHosts: ['files.mirror.local'] });
    expect(t.config.defaultLimits.memoryMb).toBe(1024);
  });

  it('touches nothing that did not change (approvals are read per call; the port waits for a restart; no engine switch is wired here)', () => {
    const t = targets();
    t.apply({ ...before, port: 9000, dockerHost: 'tcp://x:2375', approvals: { ...before.approvals, defaultPolicy: 'ask-every' } }, before);
    expect(t.setPoolSize).not.toHaveBeenCalled();
    expect(t.setDefaultLimits).not.toHaveBeenCalled();
    expect(t.setAllowed).not.toHaveBeenCalled();
    expect(t.config.port).toBe(defaultConfig().port);
  });
});
