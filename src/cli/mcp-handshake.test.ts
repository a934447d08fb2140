import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../test-support/run-cli';

const SANDPIT_BIN = join(import.meta.dirname, '..', '..', 'bin', 'sandpit.mjs');

/**
 * `sandpit mcp` answers the handshake before its core is up: here the Docker engine accepts connections and
 * never answers (a hung daemon), so nothing that needs the engine can finish — and still the client connects
 * and lists the tools. (No Docker needed: this runs in the unit project.)
 *
 * "Does not wait" is measured from the engine's side, not by a wall clock: a core that meets a hung engine gives
 * up on it no sooner than BOOT_GIVES_UP_MS after its first call there (a 3 s probe, then the engine monitor's 15 s
 * check), so a list that waited for the core would come after that. The deadlines of the calls are generous: in a
 * loaded test run, starting Node and loading the bundle alone once took over 20 s.
 */
const BOOT_GIVES_UP_MS = 18_000;
const CALL_TIMEOUT_MS = 60_000;
describe('sandpit mcp: the handshake does not wait for the engine', () => {
  let home: string;
  let engine: Server;
  const held: Socket[] = [];
  let firstCallAt: number | undefined;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-handshake-'));
    engine = createServer((socket) => {
      firstCallAt ??= Date.now();
      held.push(socket);
    });
    await new Promise<void>((resolve) => engine.listen(join(home, 'hung-docker.sock'), resolve));
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => engine.close(resolve));
    await rm(home, { recursive: true, force: true });
  });

  it('answers initialize and tools/list while the engine hangs; a run is refused in plain words, and the server keeps answering', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SANDPIT_BIN, 'mcp'],
      env: cliEnv({ SANDPIT_HOME: join(home, 'data'), DOCKER_HOST: `unix://${join(home, 'hung-docker.sock')}`, SANDPIT_LOG: 'error' }),
      stderr: 'ignore',
    });
    const client = new Client({ name: 'handshake-test', version: '1' });
    try {
      await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
      const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
      const listedAt = Date.now();
      // Listed before the core could have given up on the engine (or before it even called it).
      if (firstCallAt !== undefined) expect(listedAt - firstCallAt, 'ms from the first engine call of the core to the tools list').toBeLessThan(BOOT_GIVES_UP_MS);
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['execute_code', 'list_environments', 'create_session']));
      expect(client.getServerVersion()?.name).toBe('sandpit');
      // A run needs the engine: it is refused, saying so once and what to do — it does not wait out every lookup.
      const run = (await client.callTool({ name: 'execute_code', arguments: { code: '1+1' } }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
      expect(run.isError).toBe(true);
      // Refused once the core gave up on the engine — not after one more wait per image or per check.
      expect(firstCallAt, 'the core called the engine').toBeDefined();
      expect(Date.now() - (firstCallAt ?? 0), 'ms from the first engine call of the core to the refusal').toBeLessThan(BOOT_GIVES_UP_MS + 15_000);
      const text = run.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      expect(text).toMatch(/^DOCKER_UNAVAILABLE: The Docker engine did not answer/);
      expect(text.match(/Start Docker/g)).toHaveLength(1);
      expect((await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS })).tools.length).toBe(tools.length);
    } finally {
      await client.close();
    }
  }, 3 * CALL_TIMEOUT_MS);
});
