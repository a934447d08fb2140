import { describe, expect, it } from 'vitest';
import type { SettingsView } from '../../../../shared/domain/settings';
import { buildPatch, changedFields, draftFromView, rebase, serverErrors } from './settings-draft';

const view: SettingsView = {
  defaultLimits: { memoryMb: 512 },
  poolSize: 1,
  approvals: { defaultPolicy: 'free', perClient: { cursor: 'ask-every' }, timeoutSeconds: 120 },
  egress: { pipIndexUrl: 'https://pypi.org/simple', npmRegistryUrl: 'https://registry.npmjs.org/', cranRepositoryUrl: 'https://cloud.r-project.org/', extraHosts: [] },
  auditRetentionDays: 0,
  defaultIsolation: 'standard',
  port: 7411,
  idleMinutes: 30,
  idleAction: 'stop',
  protectedFolders: ['~/.ssh'],
  snapshotStoreMb: 10_240,
  dataFolder: '/home/me/.sandpit',
  restartNeeded: [],
};

describe('settings draft', () => {
  it('sends only what changed, limits as a whole, removed client rules as null', () => {
    const base = draftFromView(view, 'system');
    expect(buildPatch(base, base)).toEqual({ patch: {}, errors: {} });
    const draft = { ...base, cpus: '1.5', perClient: {}, dockerHost: 'unix:///tmp/d.sock', isolation: 'strong' as const, theme: 'dark' as const };
    expect(changedFields(draft, base)).toEqual(['cpus', 'perClient', 'dockerHost', 'isolation', 'theme']);
    expect(buildPatch(draft, base)).toEqual({
      patch: {
        defaultLimits: { memoryMb: 512, cpus: 1.5 },
        approvals: { perClient: { cursor: null } },
        dockerHost: 'unix:///tmp/d.sock',
        defaultIsolation: 'strong',
      },
      errors: {},
    });
    expect(buildPatch({ ...base, dockerHost: 'x' }, { ...base, dockerHost: 'x', memoryMb: '1' }).patch).toMatchObject({ defaultLimits: { memoryMb: 512 } });
    expect(buildPatch({ ...draftFromView({ ...view, dockerHost: 'tcp://h:2376' }, 'system'), dockerHost: ' ' }, draftFromView({ ...view, dockerHost: 'tcp://h:2376' }, 'system')).patch).toEqual({ dockerHost: null });
  });

  it('says which field is wrong before anything is sent', () => {
    const base = draftFromView(view, 'system');
    const { errors } = buildPatch({ ...base, memoryMb: 'lots', approvalTimeout: '5', port: '80', retention: '-1', pool: '1.5' }, base);
    expect(Object.keys(errors).sort()).toEqual(['approvalTimeout', 'memoryMb', 'pool', 'port', 'retention']);
    expect(errors.memoryMb).toMatch(/positive number/);
  });

  it('keeps what was typed when the saved settings change underneath, and takes the rest', () => {
    const oldBase = draftFromView(view, 'system');
    const draft = { ...oldBase, pool: '3' };
    const newBase = draftFromView({ ...view, poolSize: 2, auditRetentionDays: 30 }, 'system');
    expect(rebase(draft, oldBase, newBase)).toMatchObject({ pool: '3', retention: '30' });
  });

  it('puts the server’s words next to the fields they name, and a Docker refusal next to the address', () => {
    expect(serverErrors('patch.egress.pipIndexUrl: must be an http:// or https:// URL; patch.port: too small', {})).toEqual({
      errors: { pipIndexUrl: 'must be an http:// or https:// URL', port: 'too small' },
    });
    const docker = 'There is no Docker engine answering at unix:///tmp/nope.sock: connect ENOENT.';
    expect(serverErrors(docker, { dockerHost: 'unix:///tmp/nope.sock' })).toEqual({ errors: { dockerHost: docker } });
    expect(serverErrors('The disk is full.', { poolSize: 2 })).toEqual({ errors: {}, general: 'The disk is full.' });
  });
});
