#!/usr/bin/env node
/**
 * `npm run build:mcpb`: the Claude Desktop extension, out/sandpit.mcpb. It holds the npm package of this
 * repository installed with its dependencies (server/node_modules/sandpit: the CLI bundle, the panel, the
 * Dockerfiles and agents) and a manifest whose tool list is asked from that very server (tools/list), with
 * the data folder as a setting of the extension. Packed and validated by the official `mcpb` tool.
 *
 *   node scripts/build-mcpb.mjs [--prefix DIR] [--out FILE]
 *
 * --prefix: a folder where the package is already installed (node_modules/sandpit); default: `npm pack`
 * of this repository installed into a fresh folder (from npm's cache where it has the dependencies).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { values } = parseArgs({ options: { prefix: { type: 'string' }, out: { type: 'string' } } });
const out = resolve(values.out ?? join(root, 'out', 'sandpit.mcpb'));
const REQUIRED_NODE = pkg.engines.node;

function say(line) {
  process.stderr.write(`build-mcpb: ${line}\n`);
}

function npm(args, cwd) {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** The package installed with its dependencies: a prefix holding node_modules/sandpit. */
function installedPrefix(work) {
  if (values.prefix) return resolve(values.prefix);
  for (const built of ['out/cli/index.mjs', 'out/renderer/index.html']) {
    if (!existsSync(join(root, built))) throw new Error(`${built} is missing: run \`npm run build\` first.`);
  }
  const tarball = join(
    work,
    npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', work], root).trim().split('\n').at(-1),
  );
  const prefix = join(work, 'prefix');
  mkdirSync(prefix);
  npm(
    [
      'install',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--ignore-scripts',
      '--omit=dev',
      '--no-audit',
      '--no-fund',
      tarball,
    ],
    prefix,
  );
  return prefix;
}

/** The tools as the packed server itself lists them (it answers before it needs Docker). */
async function toolsOf(bin, work) {
  const client = new Client({ name: 'build-mcpb', version: pkg.version });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: work,
    SANDPIT_HOME: join(work, 'data'),
    DOCKER_HOST: `unix://${join(work, 'no-docker.sock')}`,
    SANDPIT_LOG: 'error',
  };
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env, stderr: 'ignore' }),
    { timeout: 30_000 },
  );
  try {
    const { tools } = await client.listTools(undefined, { timeout: 30_000 });
    return tools.map((tool) => ({ name: tool.name, description: (tool.description ?? '').split('\n')[0] }));
  } finally {
    await client.close();
  }
}

const LONG_DESCRIPTION = `Sandpit runs the code Claude writes in hardened Docker sandboxes on this computer: no network unless you allow it, none of your files unless you share a folder, limits on memory, time and processes, and every run in an audit log you can check.

Needs: Docker (or Podman) running, and Node.js ${REQUIRED_NODE.replace('>=', '')} or newer. The extension declares that Node.js version. If the Node.js that Claude Desktop starts extensions with is older, Sandpit does not start: it stops at once, and Claude Desktop's log for this extension says "Sandpit needs Node.js ${REQUIRED_NODE.replace('>=', '')} or newer, but this is Node.js …". Then install Node.js ${REQUIRED_NODE.replace('>=', '')} from nodejs.org, or connect Claude Desktop from the Connect screen of the Sandpit app or with \`sandpit connect claude-desktop\` (those use the Node.js that runs Sandpit).

When the Sandpit app (or \`sandpit serve\`) runs on the same data folder, the extension hands every call to it, so runs show live in its panel and its approval settings apply (made stricter by this extension's "Ask before runs", never looser); otherwise it runs Sandpit by itself.`;

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sandpit-mcpb-'));
  try {
    const prefix = installedPrefix(work);
    const installed = join(prefix, 'node_modules');
    if (!existsSync(join(installed, 'sandpit', 'bin', 'sandpit.mjs')))
      throw new Error(`${prefix} has no node_modules/sandpit.`);
    const stage = join(work, 'bundle');
    // The installed tree as is: sandpit and its dependencies side by side, as Node resolves them.
    cpSync(installed, join(stage, 'server', 'node_modules'), { recursive: true, verbatimSymlinks: true });
    rmSync(join(stage, 'server', 'node_modules', '.bin'), { recursive: true, force: true });
    const entry = 'server/node_modules/sandpit/bin/sandpit.mjs';
    const tools = await toolsOf(join(stage, entry), work);
    const manifest = {
      manifest_version: '0.3',
      name: 'sandpit',
      display_name: 'Sandpit',
      version: pkg.version,
      description: pkg.description,
      long_description: LONG_DESCRIPTION,
      author: { name: 'Sandpit' },
      license: pkg.license,
      keywords: ['sandbox', 'docker', 'code execution', 'python', 'javascript'],
      server: {
        type: 'node',
        entry_point: entry,
        mcp_config: {
          command: 'node',
          args: [`\${__dirname}/${entry}`, 'mcp'],
          env: {
            SANDPIT_HOME: '${user_config.data_folder}',
            SANDPIT_ASSISTANT: 'claude-desktop',
            SANDPIT_APPROVAL: '${user_config.approval_mode}',
          },
        },
      },
      tools,
      compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: REQUIRED_NODE } },
      user_config: {
        data_folder: {
          type: 'directory',
          title: 'Sandpit data folder',
          description:
            "Where Sandpit keeps its audit log, environments and settings. Leave it empty to use the Sandpit app's own folder, so runs show in its panel.",
          required: false,
        },
        approval_mode: {
          type: 'string',
          title: 'Ask before runs',
          description:
            "ask-every: Sandpit asks you before every run; ask-new: before new sessions, installs and runs with network; empty or free: as Sandpit's Settings say. It can make Sandpit ask more than its Settings do, never less. You answer in the Sandpit panel (while it runs).",
          required: false,
          default: '',
        },
      },
    };
    writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const mcpb = join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
    execFileSync(process.execPath, [mcpb, 'validate', join(stage, 'manifest.json')], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    mkdirSync(dirname(out), { recursive: true });
    rmSync(out, { force: true });
    execFileSync(process.execPath, [mcpb, 'pack', stage, out], { stdio: ['ignore', 'inherit', 'inherit'] });
    say(`wrote ${out} (${tools.length} tools)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  say(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
