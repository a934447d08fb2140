import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from '../api/dispatcher';
import { startNpmRegistry } from '../../test-support/npm-registry';
import type { NpmRegistry } from '../../test-support/npm-registry';
import { testDocker } from '../../test-support/docker';
import { startTestSandpit } from '../../test-support/sandpit';
import { connectInProcess } from '../../test-support/in-process-mcp';
import type { TestSandpit } from '../../test-support/sandpit';

interface RunOut {
  session_id: string;
  status: string;
  stdout: string;
  result?: string;
  error?: { name: string; value: string; traceback: string };
}

/**
 * TypeScript sessions, as an assistant uses them over MCP (a real SDK client): stateful like JavaScript on the
 * same agent, types removed by the core before the code reaches it, so errors name the TypeScript lines;
 * run_file for .ts; npm packages from a registry the test serves on its own Docker network.
 */
describe('typescript sessions over MCP', () => {
  let registry: NpmRegistry | undefined;
  let sp: TestSandpit | undefined;
  let client: Client;
  let closeAll: () => Promise<void>;
  let sessionId: string;

  const tool = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
  const run = async (code: string): Promise<RunOut> => {
    const r = await tool('execute_code', { code, session_id: sessionId });
    expect(r.isError ?? false).toBe(false);
    return r.structuredContent as unknown as RunOut;
  };

  beforeAll(async () => {
    const images = inject('images');
    if (!images.python || !images.node) throw new Error('The python and node executor images were not built by the docker globalSetup.');
    registry = await startNpmRegistry(testDocker(), { image: images.python });
    sp = await startTestSandpit({ npmRegistryUrl: registry.url, installNetwork: registry.network });
    const connected = await connectInProcess(sp, 'ts-test', 'mcp:ts');
    client = connected.client;
    closeAll = connected.close;
    const created = await tool('create_session', { language: 'typescript' });
    expect(created.isError ?? false).toBe(false);
    sessionId = (created.structuredContent as { session_id: string }).session_id;
  });
  afterAll(async () => {
    await closeAll?.();
    await sp?.cleanup();
    await registry?.stop();
  });

  it('is a TypeScript session on the node image, whose agent says it serves TypeScript', () => {
    const info = sp!.sessions.session(sessionId).info();
    expect(info.language).toBe('typescript');
    expect(info.image).toBe(inject('images').node);
  });

  it('keeps typed variables, interfaces’ values, functions and classes between runs', async () => {
    const first = await run('interface Point { x: number; y: number }\nconst p: Point = { x: 3, y: 4 };\nfunction norm(q: Point): number { return Math.hypot(q.x, q.y) }\nclass Box<T> { constructor(public value: T) {} }');
    expect(first.status, first.error?.traceback).toBe('ok');
    const second = await run('const b: Box<number> = new Box(norm(p));\nb.value as number');
    expect(second.status, second.error?.traceback).toBe('ok');
    expect(second.result).toBe('5');
  });

  it('names the TypeScript line of an error (types removed in place)', async () => {
    const r = await run('type Id = string;\nconst ids: Id[] = ["a"];\nfunction boom(id: Id): never {\n  throw new Error(`no ${id}`);\n}\nboom(ids[0]!)');
    expect(r.status).toBe('error');
    expect(r.error?.value).toContain('no a');
    expect(r.error?.traceback).toMatch(/at boom \(<cell-\d+>:4:\d+\)/);
  });

  it('reports a TypeScript syntax error with its line, and runs nothing of that code', async () => {
    const r = await run('globalThis.touched = 1;\nlet x: = 3');
    expect(r.status).toBe('error');
    expect(r.error?.name).toBe('SyntaxError');
    expect(r.error?.value).toContain('(line 2)');
    expect((await run('typeof (globalThis as { touched?: number }).touched')).result).toBe("'undefined'");
  });

  it('runs a .ts file in the session’s state with run_file, and refuses it in a JavaScript session', async () => {
    const written = await tool('write_file', { session_id: sessionId, path: 'greet.ts', content: 'const greeting: string = `hi ${p.x}`;\nconsole.log(greeting as string)' });
    expect(written.isError ?? false).toBe(false);
    const r = await tool('run_file', { session_id: sessionId, path: 'greet.ts' });
    expect(r.isError ?? false).toBe(false);
    const out = r.structuredContent as unknown as RunOut;
    expect(out.status, out.error?.traceback).toBe('ok');
    expect(out.stdout).toBe('hi 3\n');
    const js = await call(sp!.api, 'sessions.create', { language: 'javascript' }, { transport: 'internal' });
    await expect(call(sp!.api, 'sessions.runFile', { sessionId: js.id, path: '/workspace/greet.ts' }, { transport: 'internal' })).rejects.toThrow(
      '"greet.ts" cannot be run in a JavaScript session: run it in a TypeScript session',
    );
  });

  it('installs npm packages, which typed code imports at once', async () => {
    const installed = await tool('install_packages', { session_id: sessionId, packages: ['sandpit-demo-js@1.0.0'] });
    expect(installed.isError ?? false, JSON.stringify(installed.content)).toBe(false);
    const r = await run("import { answer } from 'sandpit-demo-js';\nconst found: number = answer;\nfound");
    expect(r.status, r.error?.traceback).toBe('ok');
    expect(r.result).toBe('42');
  });
});
