import { describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { defaultConfig } from '../config';
import { installSettingsFor, networkFor } from './environment-services';
import type { EgressAccess } from './environment-services';

const egress: EgressAccess = {
  network: 'sandpit-egress-1',
  env: (id) => ({ HTTP_PROXY: `http://${id}:secret-of-${id}@10.0.0.1:3128` }),
  installerProxy: (id) => ({ network: 'sandpit-egress-1', env: {}, pipProxyUrl: `http://${id}:secret-of-${id}@10.0.0.1:3128` }),
};

describe('installSettingsFor', () => {
  it('refuses to install around the egress proxy when it is on but not running (no silent open network)', () => {
    let error: unknown;
    try {
      installSettingsFor(defaultConfig({ egressProxy: true }), { egress: undefined, open: 'bridge' }, 'ses-1');
    } catch (e) {
      error = e;
    }
    expect(isSandpitError(error, 'DOCKER_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/egress proxy .* is not running/);
  });

  it("says why the proxy is not running when its start failed (a remote engine's refusal)", () => {
    const why = 'Package installs … cannot reach it.';
    expect(() => installSettingsFor(defaultConfig({ egressProxy: true }), { egress: undefined, open: 'bridge' }, 'ses-1', why)).toThrow(`is not running (${why}). Set SANDPIT_EGRESS_PROXY=off`);
  });

  it('sends installs through the proxy when it runs, with the session\'s credential', () => {
    expect(installSettingsFor(defaultConfig({ egressProxy: true }), { egress, open: 'bridge' }, 'ses-1').proxy?.pipProxyUrl).toBe('http://ses-1:secret-of-ses-1@10.0.0.1:3128');
    expect(installSettingsFor(defaultConfig({ egressProxy: false }), { egress: undefined, open: 'bridge' }, 'ses-1').proxy).toBeUndefined();
  });

  it("installs over the engine's open network when the proxy is off, unless SANDPIT_INSTALL_NETWORK names another", () => {
    expect(installSettingsFor(defaultConfig({ egressProxy: false }), { egress: undefined, open: 'engine-open' }, 'ses-1').installNetwork).toBe('engine-open');
    expect(installSettingsFor(defaultConfig({ egressProxy: false, installNetwork: 'mirror-net' }), { egress: undefined, open: 'engine-open' }, 'ses-1').installNetwork).toBe('mirror-net');
  });
});

describe('networkFor', () => {
  it('gives none no network, open the bridge, packages the egress network with a per-session credential', () => {
    expect(networkFor('none', { egress, open: 'bridge' })).toEqual({});
    expect(networkFor('open', { egress: undefined, open: 'bridge' })).toEqual({ network: 'bridge' });
    const packages = networkFor('packages', { egress, open: 'bridge' });
    expect(packages.network).toBe('sandpit-egress-1');
    expect(typeof packages.containerEnv === 'function' ? packages.containerEnv('ses-9') : undefined).toEqual({ HTTP_PROXY: 'http://ses-9:secret-of-ses-9@10.0.0.1:3128' });
    expect(() => networkFor('packages', { egress: undefined, open: 'bridge' })).toThrow(/egress proxy/);
    expect(() => networkFor('packages', { egress: undefined, open: 'bridge' }, 'the engine is remote.')).toThrow(/sessions of this environment cannot start\. the engine is remote\.$/);
  });
});
