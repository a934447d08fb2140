import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ASSISTANT_IDS } from '../../shared/domain/assistants';
import type { AssistantId } from '../../shared/domain/assistants';
import { LAYOUTS } from '../../test-support/assistant-layouts';
import { AssistantConnector } from './assistant-connector';
import { assistantTargets } from './assistant-targets';

let root: string;
let home: string;
let data: string;
const STDIO = {
  command: '/usr/bin/node',
  args: ['/opt/sandpit/bin/sandpit.mjs', 'mcp'],
  env: { SANDPIT_HOME: '/data/sandpit' },
};

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sandpit-assistants-'));
  home = join(root, 'home');
  data = join(root, 'data');
  await mkdir(home, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function connector(): AssistantConnector {
  return new AssistantConnector({ dataHome: data, places: { home, platform: 'linux' }, stdio: STDIO });
}

async function lay(id: AssistantId, text: string = LAYOUTS[id].text): Promise<string> {
  const path = join(home, LAYOUTS[id].path);
  await mkdir(dirname(path), { recursive: true });
  if (id === 'claude-code') await mkdir(join(home, '.claude'), { recursive: true });
  await writeFile(path, text);
  return path;
}

function parsed(id: AssistantId, text: string): Record<string, Record<string, unknown>> {
  return (id === 'codex' ? parseToml(text) : parseJsonc(text)) as Record<string, Record<string, unknown>>;
}

describe('AssistantConnector against each assistant’s real file layout', () => {
  it('finds only the assistants whose folders are on this computer', async () => {
    await lay('cursor');
    await mkdir(join(home, '.codex'), { recursive: true });
    const states = Object.fromEntries((await connector().list()).map((s) => [s.id, s.state]));
    expect(states).toEqual({
      ...Object.fromEntries(ASSISTANT_IDS.map((id) => [id, 'not-found'])),
      cursor: 'not-connected',
      codex: 'not-connected',
    });
  });

  for (const id of ASSISTANT_IDS) {
    it(`${id}: Connect merges Sandpit in (other servers, settings and comments kept); Disconnect puts the file back byte for byte`, async () => {
      const path = await lay(id);
      const original = await readFile(path, 'utf8');
      const target = assistantTargets({ home, platform: 'linux' }).find((t) => t.id === id)!;
      const change = await connector().connect(id);
      expect(change.changed).toBe(true);
      expect(change.status.state).toBe('connected');
      const written = await readFile(path, 'utf8');
      expect(change.after).toBe(written);
      const before = parsed(id, original);
      const after = parsed(id, written);
      const servers = after[target.serversKey]!;
      expect(servers.sandpit).toMatchObject({
        command: STDIO.command,
        args: STDIO.args,
        env: { SANDPIT_HOME: '/data/sandpit', SANDPIT_ASSISTANT: id },
      });
      // Everything else is as it was.
      const { sandpit: _ours, ...others } = servers;
      expect(others).toEqual(before[target.serversKey]);
      expect({ ...after, [target.serversKey]: undefined }).toEqual({ ...before, [target.serversKey]: undefined });
      // Every line of the old file is still there (comments and formatting included; a comma may follow the last server).
      const lines = written.split('\n');
      const kept = original.split('\n').filter((line) => !lines.includes(line) && !lines.includes(`${line},`));
      expect(kept.filter((line) => line.trim() !== '' && !/^\s*[}\]],?$/.test(line))).toEqual([]);
      expect(await readFile(change.backupPath!, 'utf8')).toBe(original);
      // A second Connect changes nothing.
      expect((await connector().connect(id)).changed).toBe(false);

      const undo = await connector().disconnect(id);
      expect(undo.changed).toBe(true);
      expect(await readFile(path, 'utf8')).toBe(original);
      expect(undo.status.state).toBe('not-connected');
      await expect(lstat(change.backupPath!)).rejects.toThrow();
    });
  }

  it('never overwrites a file that does not parse, and says where it breaks and what to do', async () => {
    const broken = '{\n  "mcpServers": {\n    "docs": { "url": "http://localhost:3001/mcp" }\n    "git": {}\n  }\n}\n';
    const path = await lay('cursor', broken);
    await expect(connector().connect('cursor')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(
        /line 4, column 5: a missing comma.*left the file as it is.*fix that spot/,
      ) as unknown,
    });
    expect(await readFile(path, 'utf8')).toBe(broken);
    const status = (await connector().list()).find((s) => s.id === 'cursor')!;
    expect(status).toMatchObject({ state: 'unreadable', problem: expect.stringContaining(path) as unknown });
    // Comments in a file that may not have them (Claude Desktop reads strict JSON) are refused too.
    const desktop = await lay('claude-desktop', '{ // mine\n "mcpServers": {} }\n');
    await expect(connector().connect('claude-desktop')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('a comment') as unknown,
    });
    expect(await readFile(desktop, 'utf8')).toBe('{ // mine\n "mcpServers": {} }\n');
    const toml = await lay('codex', 'model = "o3"\n[mcp_servers.docs\ncommand = "x"\n');
    await expect(connector().connect('codex')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('line 2') as unknown,
    });
    expect(await readFile(toml, 'utf8')).toBe('model = "o3"\n[mcp_servers.docs\ncommand = "x"\n');
  });

  it('creates the file when the assistant has none yet, and Disconnect removes it again', async () => {
    await mkdir(join(home, '.cursor'), { recursive: true });
    const change = await connector().connect('cursor');
    expect(JSON.parse(change.after)).toEqual({
      mcpServers: {
        sandpit: { command: STDIO.command, args: STDIO.args, env: { ...STDIO.env, SANDPIT_ASSISTANT: 'cursor' } },
      },
    });
    await connector().disconnect('cursor');
    await expect(lstat(join(home, '.cursor', 'mcp.json'))).rejects.toThrow();
  });

  it('when the file changed after Connect, Disconnect takes out only Sandpit’s entry and keeps the change', async () => {
    const path = await lay('cursor');
    await connector().connect('cursor');
    const edited = (await readFile(path, 'utf8')).replace('"docs"', '"docs2"');
    await writeFile(path, edited);
    const undo = await connector().disconnect('cursor');
    expect(undo.message).toMatch(/changed since Sandpit connected/);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      mcpServers: { docs2: { url: 'http://localhost:3001/mcp' } },
    });
  });

  it('an outdated Sandpit entry in a Codex file is replaced where it is; the rest of the file stays', async () => {
    const text = `${LAYOUTS.codex.text}\n[mcp_servers.sandpit]\ncommand = "/old/node"\nargs = ["/old/sandpit.mjs", "mcp"]\n\n[mcp_servers.sandpit.env]\nSANDPIT_HOME = "/old"\n`;
    const path = await lay('codex', text);
    expect((await connector().list()).find((s) => s.id === 'codex')!.state).toBe('outdated');
    await connector().connect('codex');
    const written = await readFile(path, 'utf8');
    expect(written).not.toContain('/old');
    expect(written.startsWith(LAYOUTS.codex.text)).toBe(true);
    expect((parseToml(written) as { mcp_servers: Record<string, unknown> }).mcp_servers.docs).toEqual({
      command: 'npx',
      args: ['-y', 'docs-mcp'],
      env: { DOCS_TOKEN: 'abc' },
    });
    await connector().disconnect('codex');
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('writes through a linked settings file (dotfiles kept in a repository) and keeps the link', async () => {
    const real = join(root, 'dotfiles', 'mcp.json');
    await mkdir(dirname(real), { recursive: true });
    await writeFile(real, LAYOUTS.cursor.text);
    await mkdir(join(home, '.cursor'), { recursive: true });
    await symlink(real, join(home, '.cursor', 'mcp.json'));
    await connector().connect('cursor');
    expect(await readlink(join(home, '.cursor', 'mcp.json'))).toBe(real);
    expect(await readFile(real, 'utf8')).toContain('"sandpit"');
    await connector().disconnect('cursor');
    expect(await readFile(real, 'utf8')).toBe(LAYOUTS.cursor.text);
  });

  it('a record in the data folder edited while Sandpit was stopped never decides which file is written', async () => {
    const path = await lay('cursor');
    await connector().connect('cursor');
    const victim = join(root, 'victim.txt');
    await writeFile(victim, 'keep me');
    const recordPath = join(data, 'connect', 'cursor.json');
    const record = JSON.parse(await readFile(recordPath, 'utf8')) as Record<string, unknown>;
    await writeFile(recordPath, JSON.stringify({ ...record, configPath: victim }));
    const undo = await connector().disconnect('cursor');
    expect(await readFile(victim, 'utf8')).toBe('keep me');
    // The record no longer names the file: only Sandpit's entry is removed from the real one.
    expect(undo.message).toMatch(/only that entry/);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(JSON.parse(LAYOUTS.cursor.text));
    // A kept copy changed behind Sandpit's back is not put back either.
    await connector().connect('cursor');
    await writeFile(join(data, 'connect', 'cursor.before'), '{"mcpServers":{"evil":{"command":"/bin/evil"}}}');
    await connector().disconnect('cursor');
    expect(await readFile(path, 'utf8')).not.toContain('evil');
  });

  it('knows where each assistant keeps its file on macOS and Windows', () => {
    const mac = Object.fromEntries(
      assistantTargets({ home: '/Users/me', platform: 'darwin' }).map((t) => [t.id, t.configPath]),
    );
    expect(mac).toMatchObject({
      'claude-desktop': '/Users/me/Library/Application Support/Claude/claude_desktop_config.json',
      vscode: '/Users/me/Library/Application Support/Code/User/mcp.json',
      zed: '/Users/me/.config/zed/settings.json',
      cursor: '/Users/me/.cursor/mcp.json',
      codex: '/Users/me/.codex/config.toml',
    });
    const win = Object.fromEntries(
      assistantTargets({ home: 'C:\\Users\\me', platform: 'win32', appData: 'C:\\Users\\me\\AppData\\Roaming' }).map(
        (t) => [t.id, t.configPath],
      ),
    );
    expect(win).toMatchObject({
      'claude-desktop': 'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      vscode: 'C:\\Users\\me\\AppData\\Roaming\\Code\\User\\mcp.json',
      zed: 'C:\\Users\\me\\AppData\\Roaming\\Zed\\settings.json',
      windsurf: 'C:\\Users\\me\\.codeium\\windsurf\\mcp_config.json',
      'lm-studio': 'C:\\Users\\me\\.lmstudio\\mcp.json',
      'gemini-cli': 'C:\\Users\\me\\.gemini\\settings.json',
      'claude-code': 'C:\\Users\\me\\.claude.json',
    });
  });
});
