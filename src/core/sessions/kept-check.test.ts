import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../shared/domain/limits';
import { keptRecordProblem } from './kept-check';
import type { KeptRecord } from './kept-store';

const record: KeptRecord = {
  version: 1,
  id: 'ses-abc123',
  name: 'kept',
  language: 'python',
  image: 'sandpit/python:abc',
  limits: DEFAULT_LIMITS,
  networkPolicy: 'none',
  isolation: 'standard',
  createdAt: '2026-12-02T10:00:00.000Z',
  idleTtlMs: 60_000,
  packages: [],
  sandbox: { containerId: 'c1', channel: 'attach', runtime: 'runc' },
};

describe('a kept record read back from the data folder', () => {
  it('keeps the network its policy gives: none, or the default bridge for open', () => {
    expect(keptRecordProblem(record, 'bridge')).toBeUndefined();
    expect(keptRecordProblem({ ...record, networkPolicy: 'open', network: 'bridge' }, 'bridge')).toBeUndefined();
  });

  it('keeps the egress proxy network of some core for policy packages (the next core makes its container again)', () => {
    expect(keptRecordProblem({ ...record, networkPolicy: 'packages', network: 'sandpit-egress-0123456789ab' }, 'bridge')).toBeUndefined();
  });

  it('refuses the host network, another network, a network for policy none, and a network that is no egress proxy\'s for packages', () => {
    expect(keptRecordProblem({ ...record, networkPolicy: 'open', network: 'host' }, 'bridge')).toMatch(/network "host"/);
    expect(keptRecordProblem({ ...record, network: 'host' }, 'bridge')).toMatch(/network "host", not the one its policy "none" gives \(none\)/);
    expect(keptRecordProblem({ ...record, networkPolicy: 'open', network: 'container:abc' }, 'bridge')).toMatch(/container:abc/);
    expect(keptRecordProblem({ ...record, networkPolicy: 'open' }, 'bridge')).toMatch(/network "none"/);
    expect(keptRecordProblem({ ...record, networkPolicy: 'packages', network: 'sandpit-egress-1' }, 'bridge')).toBe('it asks for the network "sandpit-egress-1", not the egress proxy\'s its policy "packages" gives');
    expect(keptRecordProblem({ ...record, networkPolicy: 'packages', network: 'host' }, 'bridge')).toMatch(/network "host", not the egress proxy's/);
    expect(keptRecordProblem({ ...record, networkPolicy: 'packages' }, 'bridge')).toMatch(/network "none", not the egress proxy's/);
  });

  it('refuses secrets on a record whose policy does not go through the egress proxy', () => {
    expect(keptRecordProblem({ ...record, networkPolicy: 'packages', network: 'sandpit-egress-0123456789ab', secrets: ['weather'] }, 'bridge')).toBeUndefined();
    expect(keptRecordProblem({ ...record, secrets: ['weather'] }, 'bridge')).toBe('it lists secrets, which only a session on the egress proxy (policy "packages") can use, not one of the policy "none"');
    expect(keptRecordProblem({ ...record, networkPolicy: 'open', network: 'bridge', secrets: ['weather'] }, 'bridge')).toMatch(/not one of the policy "open"/);
  });
});
