import { execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAN_UNSHARE_NET, offlineNpmEnv, withoutNetwork, writeOfflineLock } from '../test-support/offline-npm';
import { cliEnv, runCli } from '../test-support/run-cli';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BUNDLE = join(ROOT, 'out', 'cli', 'index.mjs');
const PANEL = join(ROOT, 'out', 'renderer', 'index.html');
const MCPB_CLI = join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');

/** This machine's system Node when it is older than Sandpit needs (Debian's, here), to see what such a Node is told. */
const OLDER_NODE = ((): string | undefined => {
  try {
    const version = execFileSync('/usr/bin/node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    return Number(version.split('.')[0]) < 24 ? '/usr/bin/node' : undefined;
  } catch {
    return undefined;
  }
})();

/** Newest modification time of the CLI's TypeScript sources (what the bundle is built from). */
async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, await newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Installing without cloning: `npm pack` of this repository, installed into an empty prefix offline (npm's
 * local cache only, the lock's versions, no network: test-support/offline-npm.ts), and its `sandpit` command run from an empty folder with a
 * fresh home — doctor, serve (the panel comes with it) and mcp (a real run in a sandbox built from the
 * packed Dockerfiles and agents).
 */
describe('the npm package', () => {
  let root: string;
  let sandpit: string;
  let env: Record<string, string>;
  let cwd: string;
  let prefix: string;

  beforeAll(async () => {
    // Packing takes what the build made: a missing or stale build would test something else.
    if (!existsSync(BUNDLE) || !existsSync(PANEL))
      throw new Error('out/cli and out/renderer are missing: run `npm run build` before this test.');
    if (statSync(BUNDLE).mtimeMs < (await newestSource(join(ROOT, 'src'))))
      throw new Error('out/cli is older than the sources: run `npm run build:cli` before this test.');
    root = await mkdtemp(join(tmpdir(), 'sandpit-npm-package-'));
    // Offline (test-support/offline-npm.ts): npm's cache only, in a network namespace without routes where there is one.
    if (!CAN_UNSHARE_NET) console.warn('npm-package.docker.test: no network namespace here (unshare --net); npm runs with --offline only');
    const npmEnv = cliEnv(offlineNpmEnv(process.env.npm_config_cache ?? join(process.env.HOME ?? '/root', '.npm')));
    const packCmd = withoutNetwork('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', root]);
    const pack = await runCli(packCmd.command, packCmd.args, { cwd: ROOT, env: npmEnv, timeoutMs: 60_000 });
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = join(root, pack.stdout.trim().split('\n').at(-1)!);
    prefix = join(root, 'prefix');
    await mkdir(prefix);
    await writeOfflineLock(ROOT, tarball, prefix);
    const installCmd = withoutNetwork('npm', ['ci', '--ignore-scripts']);
    const install = await runCli(installCmd.command, installCmd.args, { cwd: prefix, env: npmEnv, timeoutMs: 180_000 });
    expect(install.code, install.stderr).toBe(0);
    sandpit = join(prefix, 'node_modules', '.bin', 'sandpit');
    // A fresh home and an empty folder: nothing of this repository or of the tests' data folders.
    const home = join(root, 'home');
    cwd = join(root, 'empty');
    await mkdir(home);
    await mkdir(cwd);
    env = cliEnv({ HOME: home, SANDPIT_LOG: 'error' });
    delete env.SANDPIT_HOME;
  }, 240_000);
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('doctor finds Node, Docker and the sandbox images from the packed Dockerfiles', async () => {
    const doctor = await runCli(sandpit, ['doctor'], { cwd, env, timeoutMs: 60_000 });
    expect(doctor.stdout).toContain(`✓ Data folder: ${join(root, 'home')}`);
    expect(doctor.stdout).toMatch(/✓ Sandbox images: python: sandpit\/python:[0-9a-f]{12}/);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const connect = await runCli(sandpit, ['connect', '--list'], { cwd, env, timeoutMs: 30_000 });
    expect(connect.code, connect.stderr).toBe(0);
    expect(connect.stdout).toMatch(/claude-desktop +Claude Desktop +not on this computer/);
  });

  it('serve answers /health and serves the panel it brought', async () => {
    const child = spawn(sandpit, ['serve', '--port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        const timer = setTimeout(
          () => reject(new Error('sandpit serve did not say where it runs within 60 s')),
          60_000,
        );
        createInterface({ input: child.stdout }).on('line', (line) => {
          const match = /^Sandpit is running at (http:\/\/\S+)/.exec(line);
          if (match?.[1]) {
            clearTimeout(timer);
            resolveUrl(match[1]);
          }
        });
        child.once('exit', (code) => reject(new Error(`sandpit serve exited with ${code}`)));
      });
      expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ ok: true, engine: 'up' });
      const panel = await fetch(`${url}/`);
      expect(panel.status).toBe(200);
      expect(await panel.text()).toContain('<div id="root">');
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolveExit) =>
        child.exitCode !== null ? resolveExit(null) : child.once('exit', resolveExit),
      );
    }
  }, 90_000);

  it('mcp answers a real client and runs code in a sandbox', async () => {
    const client = new Client({ name: 'npm-package-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: sandpit, args: ['mcp'], cwd, env, stderr: 'ignore' }), {
      timeout: 30_000,
    });
    try {
      expect(client.getServerVersion()?.name).toBe('sandpit');
      const run = (await client.callTool({ name: 'execute_code', arguments: { code: 'print(6 * 7)' } }, undefined, {
        timeout: 90_000,
      })) as CallToolResult;
      expect(run.isError ?? false, JSON.stringify(run.content)).toBe(false);
      expect((run.structuredContent as { stdout: string }).stdout).toBe('42\n');
    } finally {
      await client.close();
    }
  }, 120_000);

  it('build:mcpb makes a Claude Desktop extension the official mcpb tool accepts, whose server answers as its manifest says', async () => {
    const bundle = join(root, 'sandpit.mcpb');
    const build = await runCli(
      process.execPath,
      [join(ROOT, 'scripts', 'build-mcpb.mjs'), '--prefix', prefix, '--out', bundle],
      { cwd: ROOT, env: cliEnv(), timeoutMs: 120_000 },
    );
    expect(build.code, build.stderr).toBe(0);
    const unpacked = join(root, 'unpacked');
    const unpack = await runCli(process.execPath, [MCPB_CLI, 'unpack', bundle, unpacked], {
      env: cliEnv(),
      timeoutMs: 60_000,
    });
    expect(unpack.code, unpack.stderr).toBe(0);
    const validate = await runCli(process.execPath, [MCPB_CLI, 'validate', join(unpacked, 'manifest.json')], {
      env: cliEnv(),
      timeoutMs: 30_000,
    });
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest.compatibility.runtimes.node).toBe('>=24');
    expect(manifest.user_config.data_folder).toMatchObject({ type: 'directory', required: false });
    expect(manifest.user_config.approval_mode).toMatchObject({ type: 'string', required: false });
    expect(manifest.server.mcp_config.env).toMatchObject({ SANDPIT_APPROVAL: '${user_config.approval_mode}', SANDPIT_ASSISTANT: 'claude-desktop' });
    expect(manifest.long_description).toContain('Sandpit needs Node.js 24 or newer, but this is Node.js');

    // Started as Claude Desktop starts it: ${__dirname} is the extension's folder; the data folder left empty arrives unfilled.
    const fill = (text: string): string => text.replaceAll('${__dirname}', unpacked);
    const { command, args, env: extra } = manifest.server.mcp_config;
    const client = new Client({ name: 'claude-ai', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: command === 'node' ? process.execPath : command,
        args: args.map(fill),
        cwd,
        env: { ...env, ...extra },
        stderr: 'ignore',
      }),
      { timeout: 30_000 },
    );
    try {
      const { tools } = await client.listTools(undefined, { timeout: 30_000 });
      expect(manifest.tools.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort());
      expect(tools.map((t) => t.name)).toContain('execute_code');
    } finally {
      await client.close();
    }
    // It used the default data folder of the fresh home, not a folder named after the placeholder.
    expect(existsSync(join(root, 'home', '.config', 'Sandpit'))).toBe(true);
    expect(existsSync(join(cwd, '${user_config.data_folder}'))).toBe(false);
  }, 180_000);

  it.runIf(OLDER_NODE !== undefined)(
    'on a Node older than 24 (skipped where /usr/bin/node is not older) it says what it needs, as the manifest says',
    async () => {
      const old = await runCli(OLDER_NODE!, [join(prefix, 'node_modules', 'sandpit', 'bin', 'sandpit.mjs'), 'mcp'], {
        cwd,
        env,
        timeoutMs: 30_000,
      });
      expect(old.code).toBe(1);
      expect(old.stderr).toMatch(/^Sandpit needs Node\.js 24 or newer, but this is Node\.js \d+\./);
    },
  );
});

interface Manifest {
  long_description: string;
  compatibility: { runtimes: { node: string } };
  user_config: Record<string, unknown>;
  tools: { name: string }[];
  server: { mcp_config: { command: string; args: string[]; env: Record<string, string> } };
}
