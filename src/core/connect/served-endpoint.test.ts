import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectHandlers } from '../api/connect-handlers';
import { withPolicy } from '../api/with-policy';
import { onlyHandlers } from '../../test-support/policy';
import type { CallContext } from '../api/api-types';
import { defaultConfig } from '../config';
import { tokenPath } from './token';
import { ClientRegistry } from './client-registry';
import { ServedEndpoint } from './served-endpoint';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'sandpit-connect-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const PANEL: CallContext = { transport: 'ipc' };
const CLIENT: CallContext = { transport: 'mcp-http', client: 'cursor', principal: 'mcp:1' };

describe('ServedEndpoint and the connect methods', () => {
  it('rotates the token file and switches the attached server at once; detach forgets the server', async () => {
    const endpoint = new ServedEndpoint(home);
    const first = await endpoint.token();
    const switched: string[] = [];
    const detach = endpoint.attach({ url: 'http://127.0.0.1:5555', setToken: (t) => switched.push(t), setPanelToken: () => undefined });
    expect(endpoint.url).toBe('http://127.0.0.1:5555');
    const second = await endpoint.rotate();
    expect(second).not.toBe(first);
    expect(second.length).toBeGreaterThanOrEqual(43);
    expect(switched).toEqual([second]);
    expect((await readFile(tokenPath(home), 'utf8')).trim()).toBe(second);
    expect(await endpoint.token()).toBe(second);
    detach();
    expect(endpoint.url).toBeUndefined();
  });

  it('keeps the panel link across restarts of the server, and a new one replaces it at once', async () => {
    const endpoint = new ServedEndpoint(home);
    const panelSwitches: string[] = [];
    endpoint.attach({ url: 'http://127.0.0.1:5556', setToken: () => undefined, setPanelToken: (t) => panelSwitches.push(t) });
    const first = await endpoint.panelLink();
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:5556\/#token=[A-Za-z0-9_-]{43}$/);
    // Another endpoint on the same data folder (Sandpit started again) gives the same link.
    const again = new ServedEndpoint(home);
    again.attach({ url: 'http://127.0.0.1:5556', setToken: () => undefined, setPanelToken: () => undefined });
    expect(await again.panelLink()).toBe(first);
    const { link, token } = await endpoint.rotatePanel();
    expect(link).toBe(`http://127.0.0.1:5556/#token=${token}`);
    expect(link).not.toBe(first);
    expect(panelSwitches).toEqual([token]);
    expect((await readFile(tokenPath(home, 'panel-token'), 'utf8')).trim()).toBe(token);
    // The clients' token is another secret: untouched.
    expect(token).not.toBe(await endpoint.token());
  });

  it('shows endpoints, configs and clients to anyone, the token to the panel only', async () => {
    const endpoint = new ServedEndpoint(home);
    const clients = new ClientRegistry();
    // Under the policy table, as the API serves them.
    const api = withPolicy(onlyHandlers(connectHandlers(defaultConfig({ home, port: 7499 }), { endpoint, clients, sandpitBin: '/x/bin/sandpit.mjs' })), { audit: {} as never, approvals: {} as never });
    const idle = await api['connect.info']({}, CLIENT);
    expect(idle).toMatchObject({ serving: false, mcpUrl: 'http://127.0.0.1:7499/mcp', panelUrl: 'http://127.0.0.1:7499/', tokenFile: tokenPath(home), clients: [] });
    expect(idle.stdioCommand.args).toEqual(['/x/bin/sandpit.mjs', 'mcp']);

    endpoint.attach({ url: 'http://127.0.0.1:6000', setToken: () => undefined, setPanelToken: () => undefined });
    clients.add({ name: 'cursor', transport: 'mcp-http', mcpSessionId: 's1' });
    const serving = await api['connect.info']({}, PANEL);
    expect(serving).toMatchObject({ serving: true, mcpUrl: 'http://127.0.0.1:6000/mcp', clients: [{ name: 'cursor', transport: 'mcp-http', mcpSessionId: 's1' }] });
    expect(serving.configs.cursor.http).toContain('http://127.0.0.1:6000/mcp');

    await expect(api['connect.revealToken']({}, CLIENT)).rejects.toMatchObject({ code: 'DENIED' });
    await expect(api['connect.rotateToken']({}, CLIENT)).rejects.toMatchObject({ code: 'DENIED' });
    const { token } = await api['connect.revealToken']({}, PANEL);
    const rotated = await api['connect.rotateToken']({}, { transport: 'http', client: 'panel' });
    expect(rotated.token).not.toBe(token);
  });

  it('lets only the panel list, connect or disconnect assistants: an assistant cannot rewrite another one’s configuration', async () => {
    const places = { home: join(home, 'person'), platform: 'linux' as const };
    await mkdir(join(places.home, '.cursor'), { recursive: true });
    const clients = new ClientRegistry();
    const api = withPolicy(onlyHandlers(connectHandlers(defaultConfig({ home, port: 7499 }), { endpoint: new ServedEndpoint(home), clients, places })), { audit: {} as never, approvals: {} as never });
    for (const call of [() => api['connect.assistants']({}, CLIENT), () => api['connect.connectAssistant']({ id: 'cursor' }, CLIENT), () => api['connect.disconnectAssistant']({ id: 'cursor' }, CLIENT)]) {
      await expect(call()).rejects.toMatchObject({ code: 'DENIED' });
    }
    await expect(readFile(join(places.home, '.cursor', 'mcp.json'), 'utf8')).rejects.toThrow();
    const change = await api['connect.connectAssistant']({ id: 'cursor' }, PANEL);
    expect(change.status.state).toBe('connected');
    const { assistants } = await api['connect.assistants']({}, PANEL);
    expect(assistants.find((a) => a.id === 'cursor')).toMatchObject({ state: 'connected', deepLink: expect.stringMatching(/^cursor:\/\/anysphere\.cursor-deeplink\/mcp\/install\?name=sandpit&config=/) as unknown });
    expect(assistants.find((a) => a.id === 'vscode')).toMatchObject({ state: 'not-found', deepLink: expect.stringMatching(/^vscode:mcp\/install\?/) as unknown });
  });
});
