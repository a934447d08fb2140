import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  environmentDefinitionInputSchema,
  environmentIdSchema,
  environmentPatchSchema,
  environmentSchema,
  importedDependenciesSchema,
  networkPolicySchema,
  resolveDefinition,
} from './environment';

describe('environment definitions', () => {
  it('fills defaults: base by language, empty packages, no network, no more allowed hosts, no limits', () => {
    expect(resolveDefinition({ name: 'Scratch', language: 'python' })).toEqual({
      name: 'Scratch',
      language: 'python',
      base: 'python',
      packages: { pip: [], npm: [], apt: [], cran: [] },
      network: 'none',
      allowedHosts: [],
      limits: {},
    });
    expect(resolveDefinition({ name: 'Web', language: 'javascript' }).base).toBe('node');
    expect(resolveDefinition({ name: 'Shell', language: 'bash' }).base).toBe('python');
    // The node image's agent has no bash mode: refused when saved, in words the form shows under "Starting point".
    const refused = environmentDefinitionInputSchema.safeParse({ name: 'Shell', language: 'bash', base: 'node' });
    expect(refused.error?.issues.map((i) => [i.path.join('.'), i.message])[0]).toEqual([
      'base',
      'bash runs on base "python" or "python-data", not "node": Bash code cannot run on the "node" image, whose agent does not run Bash. Choose "python" or "python-data".',
    ]);
  });

  it('trims the name and bounds it to 64 characters', () => {
    expect(resolveDefinition({ name: '  Data  ', language: 'python' }).name).toBe('Data');
    expect(() => resolveDefinition({ name: '   ', language: 'python' })).toThrow(z.ZodError);
    expect(() => resolveDefinition({ name: 'x'.repeat(65), language: 'python' })).toThrow(z.ZodError);
    expect(() => resolveDefinition({ name: 'a\u0007b', language: 'python' })).toThrow(/control characters/);
  });

  it.each([
    [{ language: 'javascript', packages: { pip: ['numpy'] } }, 'packages.pip', /pip packages need language python or bash/],
    [{ language: 'python', packages: { npm: ['lodash'] } }, 'packages.npm', /npm packages need language javascript/],
    [{ language: 'bash', packages: { npm: ['lodash'] } }, 'packages.npm', /npm packages need language javascript/],
    [{ language: 'javascript', base: 'python' }, 'base', /javascript runs on base "node", not "python"/],
    [{ language: 'python', base: 'node' }, 'base', /python runs on base "python" or "python-data"/],
    [{ language: 'python', packages: { apt: ['Bad_Name'] } }, 'packages.apt.0', /apt package names/],
    [{ language: 'python', packages: { apt: ['x'] } }, 'packages.apt.0', /apt package names/],
    [{ language: 'python', packages: { cran: ['ggplot2'] } }, 'packages.cran', /cran packages need language r/],
    [{ language: 'r', base: 'python' }, 'base', /r runs on base "r", not "python"/],
  ])('refuses %j at %s', (fields, path, message) => {
    const result = environmentDefinitionInputSchema.safeParse({ name: 'E', ...fields });
    expect(result.success).toBe(false);
    const issue = result.error?.issues.find((i) => i.path.join('.') === path);
    expect(issue?.message).toMatch(message);
  });

  it('accepts pip for python and bash, npm for javascript, apt for all', () => {
    expect(resolveDefinition({ name: 'a', language: 'bash', packages: { pip: ['httpie'], apt: ['jq', 'libgomp1', 'g++'] } }).packages).toEqual({
      pip: ['httpie'],
      npm: [],
      apt: ['jq', 'libgomp1', 'g++'],
      cran: [],
    });
    expect(resolveDefinition({ name: 'b', language: 'javascript', packages: { npm: ['lodash@4'] } }).packages.npm).toEqual(['lodash@4']);
  });

  it('describes every network policy', () => {
    expect(networkPolicySchema.options).toEqual(['none', 'packages', 'open']);
    for (const policy of networkPolicySchema.options) expect(networkPolicySchema.description).toContain(`"${policy}" =`);
    expect(() => networkPolicySchema.parse('internet')).toThrow(z.ZodError);
  });

  it.each(['python', 'my-env-2', 'a', 'x'.repeat(48)])('accepts the id %s', (id) => {
    expect(environmentIdSchema.parse(id)).toBe(id);
  });

  it.each(['', 'Python', '-x', 'x-', 'a_b', '../x', 'a.json', 'x'.repeat(49)])('refuses the id %j', (id) => {
    expect(environmentIdSchema.safeParse(id).success).toBe(false);
  });

  it('checks a stored environment, including the image hash and build state', () => {
    const stored = {
      ...resolveDefinition({ name: 'Data', language: 'python' }),
      id: 'data',
      preset: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      image: { tag: 'sandpit-env/data:abc', builtAt: '2026-01-01T00:00:00.000Z', hash: 'a'.repeat(64) },
      build: { state: 'failed', error: 'No matching distribution', failedPackage: 'nump' },
    };
    expect(environmentSchema.parse(stored)).toEqual(stored);
    expect(environmentSchema.safeParse({ ...stored, image: { ...stored.image, hash: 'nope' } }).success).toBe(false);
    expect(environmentSchema.safeParse({ ...stored, build: { state: 'done' } }).success).toBe(false);
  });

  it('converts the input schema to JSON Schema (MCP, forms) with base optional', () => {
    const json = z.toJSONSchema(environmentDefinitionInputSchema, { io: 'input' }) as { required?: string[]; properties: Record<string, unknown> };
    expect(json.required).toEqual(['name', 'language']);
    expect(Object.keys(json.properties)).toEqual(expect.arrayContaining(['base', 'packages', 'network', 'limits', 'description']));
    for (const schema of [environmentSchema, environmentPatchSchema, importedDependenciesSchema]) {
      expect(() => z.toJSONSchema(schema, { io: 'output' })).not.toThrow();
      expect(() => z.toJSONSchema(schema, { io: 'input' })).not.toThrow();
    }
  });
});
