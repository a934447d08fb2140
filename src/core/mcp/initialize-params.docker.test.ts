import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../../test-support/docker';
import type { TempHome } from '../../test-support/docker';
import { RawMcpHttp } from '../../test-support/raw-mcp-http';
import { RawMcpStdio } from '../../test-support/raw-mcp-stdio';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { serveHttp } from '../http/serve-http';
import type { ServedHttp } from '../http/serve-http';
import { createMcpHttpMount } from './http-mount';
import type { McpHttpMount } from './http-mount';

const GOOD = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'initialize-params-test', version: '1' } };

/** initialize requests that miss a required field (or give it the wrong type), and the fields the answer must name. */
const BAD: Array<{ what: string; params?: Record<string, unknown>; names: string[] }> = [
  { what: 'no params at all', names: ['params (expected object'] },
  { what: 'empty params', params: {}, names: ['params.protocolVersion', 'params.capabilities', 'params.clientInfo'] },
  { what: 'no capabilities', params: { protocolVersion: GOOD.protocolVersion, clientInfo: GOOD.clientInfo }, names: ['params.capabilities'] },
  { what: 'no clientInfo.version', params: { ...GOOD, clientInfo: { name: 'x' } }, names: ['params.clientInfo.version'] },
  { what: 'a numeric protocolVersion', params: { ...GOOD, protocolVersion: 20250618 }, names: ['params.protocolVersion (expected string'] },
];

function expectInvalidParams(answer: { error?: { code: number; message: string }; result?: unknown } | undefined, names: string[]): void {
  expect(answer?.result).toBeUndefined();
  expect(answer?.error?.code).toBe(-32602);
  expect(answer?.error?.message).toMatch(/^Invalid params: initialize needs params\.protocolVersion \(a string\), params\.capabilities \(an object\) and params\.clientInfo/);
  for (const name of names) expect(answer?.error?.message).toContain(name);
}

/** Raw JSON-RPC (no SDK client, which never sends these), on both transports: -32602 naming the fields, never -32603. */
describe('an initialize missing required fields is answered -32602 Invalid params', () => {
  describe('over stdio (sandpit mcp hosting its own core, and bridging to a running Sandpit)', () => {
    let home: TempHome;
    let raw: RawMcpStdio | undefined;
    beforeAll(() => {
      home = tempHome();
    });
    afterEach(() => {
      raw?.kill();
      raw = undefined;
    });
    afterAll(async () => {
      await home.cleanup();
    });

    const attack = async (stdio: RawMcpStdio): Promise<void> => {
      for (const [i, bad] of BAD.entries()) {
        const from = stdio.lines.length;
        await stdio.send({ id: 100 + i, method: 'initialize', ...(bad.params ? { params: bad.params } : {}) });
        expectInvalidParams(await stdio.answer(100 + i, 60_000, from), bad.names);
      }
      // The connection holds: a proper initialize is answered, and the server works.
      const ok = await stdio.request(1, 'initialize', GOOD);
      expect(ok.result?.protocolVersion).toBe('2025-06-18');
      await stdio.send({ method: 'notifications/initialized' });
      const tools = await stdio.request(2, 'tools/list');
      expect((tools.result?.tools as unknown[]).length).toBeGreaterThan(5);
      expect(stdio.notJson).toEqual([]);
    };

    it('hosting: each bad initialize gets -32602, and a good one after them still connects', async () => {
      raw = new RawMcpStdio(home.dir);
      await attack(raw);
    }, 120_000);

    describe('bridging', () => {
      let sp: TestSandpit;
      let mount: McpHttpMount;
      let served: ServedHttp;
      beforeAll(async () => {
        sp = await startTestSandpit();
        mount = createMcpHttpMount(sp);
        served = await serveHttp(sp, 0, [mount.route]);
      });
      afterAll(async () => {
        await served?.close();
        await mount?.close();
        await sp?.cleanup();
      });

      it('each bad initialize gets -32602 through the bridge, and a good one after them still connects', async () => {
        raw = new RawMcpStdio(sp.config.home);
        await attack(raw);
        expect(raw.stderr).toContain('bridging stdio to the running Sandpit');
      }, 120_000);
    });
  });

  describe('over Streamable HTTP', () => {
    let sp: TestSandpit;
    let mount: McpHttpMount;
    let served: ServedHttp;
    let raw: RawMcpHttp;
    beforeAll(async () => {
      sp = await startTestSandpit();
      mount = createMcpHttpMount(sp);
      served = await serveHttp(sp, 0, [mount.route]);
      raw = new RawMcpHttp(served.http.url, served.token);
    });
    afterAll(async () => {
      await served?.close();
      await mount?.close();
      await sp?.cleanup();
    });

    it('without a session: -32602 naming the fields, and no MCP session is opened', async () => {
      for (const [i, bad] of BAD.entries()) {
        const answer = await raw.post({ jsonrpc: '2.0', id: i, method: 'initialize', ...(bad.params ? { params: bad.params } : {}) });
        expect(answer.status).toBe(200);
        expect(answer.sessionId).toBeUndefined();
        expect(answer.messages).toHaveLength(1);
        expect(answer.messages[0]?.id).toBe(i);
        expectInvalidParams(answer.messages[0], bad.names);
      }
      expect(mount.sessionCount()).toBe(0);
    });

    it('inside an open session: -32602 too, and the session keeps working', async () => {
      const { sessionId } = await raw.initialize('initialize-params-http');
      const again = await raw.post({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-06-18' } }, sessionId);
      expectInvalidParams(again.messages[0], ['params.capabilities', 'params.clientInfo']);
      const tools = await raw.post({ jsonrpc: '2.0', id: 8, method: 'tools/list' }, sessionId);
      expect(tools.status).toBe(200);
      expect((tools.messages[0]?.result?.tools as unknown[]).length).toBeGreaterThan(5);
    });
  });
});
