import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { resolveDefinition } from '../../shared/domain/environment';
import { definitionHash } from './environment-hash';

const TAG = 'sandpit/python:1';
const base = resolveDefinition({ name: 'Data', language: 'python', packages: { pip: ['numpy==2.1.0', 'pandas'], apt: ['jq'] } });

describe('definitionHash', () => {
  it('is a sha256 hex digest', () => {
    expect(definitionHash(base, TAG)).toMatch(/^[a-f0-9]{64}$/);
  });

  it('ignores the order of packages and what does not go into the image', () => {
    const reordered = { ...base, packages: { ...base.packages, pip: ['pandas', 'numpy==2.1.0'] } };
    const renamed = { ...base, name: 'Other', description: 'x', network: 'open' as const, limits: { memoryMb: 2_048 } };
    expect(definitionHash(reordered, TAG)).toBe(definitionHash(base, TAG));
    expect(definitionHash(renamed, TAG)).toBe(definitionHash(base, TAG));
  });

  it('changes with packages, installer, base, language and the base image tag', () => {
    const hash = definitionHash(base, TAG);
    expect(definitionHash({ ...base, packages: { ...base.packages, pip: ['numpy==2.1.1', 'pandas'] } }, TAG)).not.toBe(hash);
    expect(definitionHash({ ...base, packages: { ...base.packages, apt: [] } }, TAG)).not.toBe(hash);
    expect(definitionHash({ ...base, base: 'python-data' }, TAG)).not.toBe(hash);
    expect(definitionHash({ ...base, language: 'bash' }, TAG)).not.toBe(hash);
    expect(definitionHash(base, 'sandpit/python:2')).not.toBe(hash);
    // The same name under another installer is another image.
    const asPip = resolveDefinition({ name: 'a', language: 'bash', packages: { pip: ['jq'] } });
    const asApt = resolveDefinition({ name: 'a', language: 'bash', packages: { apt: ['jq'] } });
    expect(definitionHash(asPip, TAG)).not.toBe(definitionHash(asApt, TAG));
  });
});

describe('definitionHash across registry changes', () => {
  it('keeps the hash of an environment made when pip, npm and apt were the only managers', () => {
    // The canonical JSON as it was written before packages were keyed by the registry: apt, npm and pip, always.
    const before = createHash('sha256')
      .update(JSON.stringify({ base: 'python', baseImageTag: TAG, language: 'python', packages: { apt: ['jq'], npm: [], pip: ['numpy==2.1.0', 'pandas'] }, version: 1 }))
      .digest('hex');
    expect(definitionHash(base, TAG)).toBe(before);
  });
});
