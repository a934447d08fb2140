import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LAYOUTS } from '../test-support/assistant-layouts';
import { cliEnv, runCli } from '../test-support/run-cli';

const SANDPIT_BIN = join(import.meta.dirname, '..', '..', 'bin', 'sandpit.mjs');

let root: string;
let home: string;
let env: Record<string, string>;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sandpit-connect-cli-'));
  home = join(root, 'home');
  await mkdir(home);
  // A fresh home with no engine: nothing here may need Docker.
  env = cliEnv({
    HOME: home,
    SANDPIT_HOME: join(root, 'data'),
    DOCKER_HOST: `unix://${join(root, 'no-docker.sock')}`,
    SANDPIT_LOG: 'error',
  });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function lay(relative: string, text: string): Promise<string> {
  const path = join(home, relative);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

const sandpit = (...args: string[]): ReturnType<typeof runCli> =>
  runCli(process.execPath, [SANDPIT_BIN, ...args], { env, timeoutMs: 30_000 });

describe('sandpit connect', () => {
  it('lists what it found, connects VS Code (comments kept) and undoes it byte for byte', async () => {
    const path = await lay(LAYOUTS.vscode.path, LAYOUTS.vscode.text);
    const list = await sandpit('connect', '--list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/vscode +VS Code +not connected +.*Code\/User\/mcp\.json/);
    expect(list.stdout).toMatch(/cursor +Cursor +not on this computer/);

    const connect = await sandpit('connect', 'vscode');
    expect(connect.code, connect.stderr).toBe(0);
    expect(connect.stdout).toContain('+ \t\t"sandpit": {');
    expect(connect.stdout).toMatch(
      /Sandpit is now in VS Code's configuration.*kept in .*vscode\.before.*Reload Window/s,
    );
    const written = await readFile(path, 'utf8');
    expect(written).toContain('// My servers (VS Code keeps comments here)');
    expect(written).toContain('// keeps notes');
    expect((await sandpit('connect', '--list')).stdout).toMatch(/vscode +VS Code +connected/);

    const undo = await sandpit('connect', 'vscode', '--undo');
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain('back exactly as it was');
    expect(await readFile(path, 'utf8')).toBe(LAYOUTS.vscode.text);
  }, 60_000);

  it('refuses a broken file in plain words (exit 1, file untouched) and a name it does not know (exit 2)', async () => {
    const broken = '{\n  "mcpServers": {\n    "docs": { "url": "x" },,\n  }\n}\n';
    const path = await lay(LAYOUTS.cursor.path, broken);
    const refused = await sandpit('connect', 'cursor');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot read .*mcp\.json \(line 3, column \d+: .*\), so it left the file as it is/);
    expect(await readFile(path, 'utf8')).toBe(broken);
    const unknown = await sandpit('connect', 'notepad');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('There is no assistant called "notepad"');
  }, 60_000);

  it('the configuration it writes starts a `sandpit mcp` that answers a real MCP client’s handshake', async () => {
    const path = await lay(LAYOUTS['claude-desktop'].path, LAYOUTS['claude-desktop'].text);
    expect((await sandpit('connect', 'claude-desktop')).code).toBe(0);
    const config = parseJsonc(await readFile(path, 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    const entry = config.mcpServers.sandpit!;
    expect(entry.env).toEqual({ SANDPIT_HOME: join(root, 'data'), SANDPIT_ASSISTANT: 'claude-desktop' });
    // Started the way the assistant starts it: the command, its args and its env (on top of the assistant's own environment).
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...env, ...entry.env },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'claude-ai', version: '1' });
    try {
      await client.connect(transport, { timeout: 20_000 });
      expect(client.getServerVersion()?.name).toBe('sandpit');
      const { tools } = await client.listTools(undefined, { timeout: 20_000 });
      expect(tools.map((t) => t.name)).toContain('execute_code');
    } finally {
      await client.close();
    }
  }, 60_000);
});
