import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../test-support/run-cli';

const SANDPIT_BIN = join(import.meta.dirname, '..', '..', 'bin', 'sandpit.mjs');

/**
 * An engine at an ssh:// address is reached over SSH. The CLI's bundle loads dockerode's SSH support (ssh2) only
 * when it is first used (scripts/build-cli.mjs), so this checks it is still there when it is: a server on this
 * machine's loopback that stands for an SSH server sees the client's SSH greeting, and `sandpit doctor` names the
 * address as unreachable (the server says nothing back). No Docker needed: this runs in the unit project.
 */
describe('an engine at an ssh:// address', () => {
  let home: string;
  let server: Server;
  let port = 0;
  const greetings: string[] = [];
  const sockets: Socket[] = [];
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-ssh-engine-'));
    server = createServer((socket) => {
      sockets.push(socket);
      socket.once('data', (data: Buffer) => {
        greetings.push(data.toString('latin1').split('\r\n')[0] ?? '');
        socket.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    await rm(home, { recursive: true, force: true });
  });

  it('is reached with an SSH greeting, and doctor names it when it does not answer', async () => {
    const result = await runCli(process.execPath, [SANDPIT_BIN, 'doctor'], {
      env: cliEnv({ SANDPIT_HOME: join(home, 'data'), DOCKER_HOST: `ssh://sandpit@127.0.0.1:${port}` }),
      timeoutMs: 60_000,
    });
    expect(greetings.length, result.stdout + result.stderr).toBeGreaterThanOrEqual(1);
    expect(greetings[0]).toMatch(/^SSH-2\.0-/);
    expect(result.stdout).toContain(`✗ Docker engine: sandpit@127.0.0.1:${port} (ssh) (found through DOCKER_HOST)`);
    expect(result.code).toBe(1);
  }, 90_000);
});
