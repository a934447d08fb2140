import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFileCipher } from './secret-cipher';
import { SecretStore } from './secret-store';

const VALUE = 'ghp_value-that-must-never-be-on-disk-in-clear';
const dirs: string[] = [];
async function store(): Promise<{ dir: string; store: SecretStore }> {
  const dir = await mkdtemp(join(tmpdir(), 'sandpit-secrets-'));
  dirs.push(dir);
  return { dir, store: new SecretStore({ path: join(dir, 'secrets.json'), cipher: keyFileCipher(join(dir, 'secrets.key')) }) };
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('secret store', () => {
  it('keeps the value sealed on disk (key file 0600), never returns it, and unseals it for the proxy after a restart', async () => {
    const { dir, store: first } = await store();
    const info = await first.save({ name: 'github', value: VALUE, hosts: ['api.github.com', 'uploads.github.com:8443'], environments: ['py'] });
    expect(info).toMatchObject({ name: 'github', envVar: 'GITHUB_API_KEY', placeholder: 'sandpit-secret-github', hosts: ['api.github.com', 'uploads.github.com:8443'] });
    expect(JSON.stringify(info)).not.toContain(VALUE);
    expect(JSON.stringify(await first.list())).not.toContain(VALUE);
    for (const name of await readdir(dir)) expect((await readFile(join(dir, name))).includes(Buffer.from(VALUE))).toBe(false);
    expect((await stat(join(dir, 'secrets.key'))).mode & 0o777).toBe(0o600);
    const again = new SecretStore({ path: join(dir, 'secrets.json'), cipher: keyFileCipher(join(dir, 'secrets.key')) });
    expect((await again.usable('py')).map((s) => s.value)).toEqual([VALUE]);
    expect(await again.usable('other')).toEqual([]);
    expect(await again.usesOf('py')).toEqual([{ name: 'github', hosts: ['api.github.com', 'uploads.github.com:8443'], envVar: 'GITHUB_API_KEY' }]);
  });

  it("gives a session the secrets the person ticked for it besides its environment's, marked as its own; names no secret has are left out and told", async () => {
    const { store: s } = await store();
    await s.save({ name: 'openai', value: VALUE, hosts: ['api.openai.com'], environments: ['py'] });
    await s.save({ name: 'weather', value: 'w-value', hosts: ['api.weather.test:8443'] });
    expect(await s.usesOf('py', ['weather', 'gone'])).toEqual([
      { name: 'openai', hosts: ['api.openai.com'], envVar: 'OPENAI_API_KEY' },
      { name: 'weather', hosts: ['api.weather.test:8443'], envVar: 'WEATHER_API_KEY', forSession: true },
    ]);
    // Another session of the same environment, nothing ticked: its environment's only.
    expect((await s.usesOf('py')).map((u) => u.name)).toEqual(['openai']);
    expect((await s.usable('py', ['weather'])).map((u) => [u.name, u.value])).toEqual([['openai', VALUE], ['weather', 'w-value']]);
    expect((await s.usable('other')).map((u) => u.name)).toEqual([]);
    expect(s.loadedHostsOf('other', ['weather'])).toEqual(['api.weather.test']);
    expect(s.loadedHostsOf('other')).toEqual([]);
    expect(await s.unknown(['weather', 'gone', 'gone', 'openai'])).toEqual(['gone']);
    // Deleted: no session gets it any more, whatever it ticked.
    await s.delete('weather');
    expect((await s.usable('py', ['weather'])).map((u) => u.name)).toEqual(['openai']);
    expect(s.loadedHostsOf('py', ['weather'])).toEqual(['api.openai.com']);
  });

  it('a change without a value keeps the value; delete forgets it', async () => {
    const { store: s } = await store();
    await s.save({ name: 'openai', value: VALUE, hosts: ['api.openai.com'] });
    await s.save({ name: 'openai', hosts: ['api.openai.com'], environments: ['py'] });
    expect((await s.usable('py'))[0]?.value).toBe(VALUE);
    await s.delete('openai');
    expect(await s.list()).toEqual([]);
  });

  it('refuses what it must: a new secret with no value, a value with a line break, this computer or metadata as a host, a wildcard of two labels', async () => {
    const { store: s } = await store();
    await expect(s.save({ name: 'x', hosts: ['api.example.com'] })).rejects.toThrow('The secret "x" is new: give its value.');
    await expect(s.save({ name: 'x', value: 'a\r\nX-Evil: 1', hosts: ['api.example.com'] })).rejects.toThrow('a secret value cannot contain line breaks');
    await expect(s.save({ name: 'x', value: 'v', hosts: ['localhost'] })).rejects.toThrow(/this computer/);
    await expect(s.save({ name: 'x', value: 'v', hosts: ['169.254.169.254'] })).rejects.toThrow(/link-local/);
    await expect(s.save({ name: 'x', value: 'v', hosts: ['*.*.example.com'] })).rejects.toThrow();
  });

  it('a sealed value that was altered unlocks nothing, and says so', async () => {
    const { dir, store: s } = await store();
    await s.save({ name: 'openai', value: VALUE, hosts: ['api.openai.com'], environments: ['py'] });
    const file = JSON.parse(await readFile(join(dir, 'secrets.json'), 'utf8')) as { secrets: Array<{ sealed: string }> };
    const sealed = Buffer.from(file.secrets[0]!.sealed, 'base64');
    sealed[sealed.length - 1] = (sealed[sealed.length - 1] ?? 0) ^ 1;
    file.secrets[0]!.sealed = sealed.toString('base64');
    await writeFile(join(dir, 'secrets.json'), JSON.stringify(file));
    const reread = new SecretStore({ path: join(dir, 'secrets.json'), cipher: keyFileCipher(join(dir, 'secrets.key')) });
    await expect(reread.usable('py')).rejects.toThrow('The secret "openai" cannot be unlocked: it was altered, or sealed with another key.');
  });

  it('tells who listens which secrets changed, by name only, once each change is on disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandpit-secrets-'));
    dirs.push(dir);
    const told: string[][] = [];
    const s = new SecretStore({ path: join(dir, 'secrets.json'), cipher: keyFileCipher(join(dir, 'secrets.key')), onChange: (names) => told.push(names) });
    await s.save({ name: 'openai', value: VALUE, hosts: ['api.openai.com'], environments: ['py'] });
    await s.save({ name: 'github', value: VALUE, hosts: ['api.github.com'] });
    // A refused change changes nothing and tells nothing.
    await expect(s.save({ name: 'new', hosts: ['api.example.com'] })).rejects.toThrow('give its value');
    // Removing an environment detaches it: only the secrets it had are named.
    await s.forgetEnvironment('py');
    await s.forgetEnvironment('py');
    await s.delete('github');
    expect(told).toEqual([['openai'], ['github'], ['openai'], ['github']]);
    expect(JSON.stringify(told)).not.toContain(VALUE);
  });

  it('a listener that throws does not undo nor fail the change', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandpit-secrets-'));
    dirs.push(dir);
    const s = new SecretStore({
      path: join(dir, 'secrets.json'),
      cipher: keyFileCipher(join(dir, 'secrets.key')),
      onChange: () => {
        throw new Error('listener broke');
      },
    });
    await s.save({ name: 'openai', value: VALUE, hosts: ['api.openai.com'] });
    expect((await s.list()).map((x) => x.name)).toEqual(['openai']);
  });
});
