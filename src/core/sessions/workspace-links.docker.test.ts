// Links planted in the workspace by sandboxed code never take a read, a listing, a write or a resource
// out of /workspace, and nothing is read with more rights than the sandbox user has. Real engine, SDK client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { createMcpServer } from '../mcp/create-mcp-server';
import { sessionFileUri } from '../mcp/resources';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

const CLIENT: CallContext = { transport: 'mcp-stdio', client: 'links-test', principal: 'p-links' };

const PLANT = [
  'import os',
  "os.symlink('/', 'rootlink')",
  "os.symlink('/etc', 'etclink')",
  "os.symlink('/etc/shadow', 'shadow')",
  "os.makedirs('sub', exist_ok=True)",
  "os.symlink('..', 'sub/up')",
  "open('inside.txt', 'w').write('mine')",
  "os.symlink('inside.txt', 'inner-link')",
  "os.mkfifo('pipe')",
].join('\n');

describe('links planted in the workspace', () => {
  let sp: TestSandpit;
  let sessionId: string;
  let client: Client;

  beforeAll(async () => {
    sp = await startTestSandpit();
    const created = await call(sp.api, 'sessions.create', {}, CLIENT);
    sessionId = created.id;
    const planted = await call(sp.api, 'sessions.execute', { sessionId, code: `os_cwd = __import__('os').chdir('/workspace')\n${PLANT}` }, CLIENT);
    expect(planted.status, planted.error?.traceback).toBe('ok');
    const mcp = createMcpServer({ sandpit: sp, context: () => CLIENT });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(b);
    client = new Client({ name: 'links-test', version: '1' });
    await client.connect(a);
  });
  afterAll(async () => {
    await client?.close();
    await sp?.cleanup();
  });

  it.each([
    ['rootlink/etc/shadow', 'rootlink'],
    ['rootlink/etc/passwd', 'rootlink'],
    ['etclink/passwd', 'etclink'],
    ['shadow', 'shadow'],
    ['sub/up/inside.txt', 'up'],
    ['inner-link', 'inner-link'],
  ])('read_file %s is refused, naming the link', async (path, link) => {
    const error = await call(sp.api, 'files.read', { sessionId, path }, CLIENT).then(() => undefined, (e: unknown) => e as Error & { code: string });
    expect(error?.code).toBe('INVALID_INPUT');
    expect(error?.message).toContain(link);
    expect(error?.message).toMatch(/link/i);
  });

  it('never reads what the sandbox user cannot: the agent itself cannot open /etc/shadow', async () => {
    const r = await call(sp.api, 'sessions.execute', { sessionId, code: "try:\n    open('/etc/shadow').read()\nexcept PermissionError as e:\n    r = 'denied'\nr" }, CLIENT);
    expect(r.result).toBe("'denied'");
  });

  it('refuses a FIFO at once instead of hanging, and reads a plain file', async () => {
    await expect(call(sp.api, 'files.read', { sessionId, path: 'pipe' }, CLIENT)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await call(sp.api, 'files.read', { sessionId, path: 'inside.txt' }, CLIENT)).content).toBe('mine');
  });

  it('lists a link as a link and refuses to list through one', async () => {
    const root = await call(sp.api, 'files.list', { sessionId }, CLIENT);
    expect(root.entries.find((e) => e.path === 'rootlink')).toMatchObject({ type: 'symlink' });
    expect(root.entries.find((e) => e.path === 'pipe')).toMatchObject({ type: 'other' });
    for (const path of ['rootlink/etc', 'etclink', 'sub/up']) {
      await expect(call(sp.api, 'files.list', { sessionId, path }, CLIENT)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/link/i) as unknown });
    }
  });

  it('refuses a write through a link, and writes nothing outside', async () => {
    for (const path of ['etclink/evil.txt', 'sub/up/escape.txt', 'rootlink/tmp/x.txt', 'inner-link']) {
      await expect(call(sp.api, 'files.write', { sessionId, path, content: 'no' }, CLIENT)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    const check = await call(sp.api, 'sessions.execute', { sessionId, code: "import os\n(os.path.exists('/tmp/x.txt'), open('/workspace/inside.txt').read())" }, CLIENT);
    expect(check.result).toBe("(False, 'mine')");
  });

  it('refuses the same paths as MCP resources', async () => {
    for (const path of ['rootlink/etc/shadow', 'etclink/passwd', 'sub/up/inside.txt']) {
      await expect(client.readResource({ uri: sessionFileUri(sessionId, path) })).rejects.toThrow(/not found.*link/is);
    }
    const ok = await client.readResource({ uri: sessionFileUri(sessionId, 'inside.txt') });
    expect(ok.contents[0]).toMatchObject({ text: 'mine' });
  });
});
