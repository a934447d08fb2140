/**
 * Issue 17: a data analyst's flow end to end — an assistant (the MCP SDK client) starts a small web app of the
 * standard library that reads a CSV in the session, calls preview_port, and the session's Preview tab shows the
 * page. The page, served from the sandbox, tries to act as the panel (read its storage, call /api with and without
 * credentials, open the MCP endpoint): everything is refused, and the page says so itself.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../support/mcp';
import { uniqueName } from '../support/panel-api';
import { expect, test } from './fixtures';

const SALES_CSV = 'region,amount\nNorth,120\nSouth,80\nEast,50\n';

/** The app: http.server from the standard library; its page carries the attacks a hostile app could try. */
const APP = String.raw`
import csv, html, http.server, urllib.parse
class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        panel = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get('panel', [''])[0]
        rows = list(csv.DictReader(open('sales.csv')))
        total = sum(int(r['amount']) for r in rows)
        body = '<h1>Sales dashboard</h1><p id="total">Total: %d</p><table>%s</table><ul id="attacks"></ul><script>%s</script>' % (
            total, ''.join('<tr><td>%s</td><td>%s</td></tr>' % (html.escape(r['region']), r['amount']) for r in rows), ATTACKS % {'panel': panel})
        data = body.encode()
        self.send_response(200)
        self.send_header('Content-Type', 'text/html; charset=utf-8')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)
ATTACKS = '''
const panel = %(panel)r;
const out = document.getElementById('attacks');
const say = (what, result) => { const li = document.createElement('li'); li.dataset.attack = what; li.textContent = what + ': ' + result; out.appendChild(li); };
async function attempt(what, run) { try { say(what, 'GOT ' + String(await run()).slice(0, 60)); } catch (e) { say(what, 'refused'); } }
(async () => {
  await attempt('panel-storage', () => { const v = window.parent.sessionStorage.length; return 'sessionStorage ' + v; });
  await attempt('panel-local-storage', () => window.parent.localStorage.length);
  await attempt('panel-document', () => window.parent.document.title);
  await attempt('api-without-credentials', async () => (await fetch(panel + '/api/sessions.list', { method: 'POST', body: '{}' })).status);
  await attempt('api-with-credentials', async () => (await fetch(panel + '/api/sessions.list', { method: 'POST', body: '{}', credentials: 'include' })).status);
  await attempt('mcp-endpoint', async () => (await fetch(panel + '/mcp', { method: 'POST', body: '{}', credentials: 'include', headers: { 'content-type': 'application/json' } })).status);
  say('done', 'yes');
})();
'''
http.server.ThreadingHTTPServer(('0.0.0.0', 8000), Page).serve_forever()
`;

test('an assistant previews a stdlib web app reading a CSV; the Preview tab shows it, and the page cannot act as the panel', async ({
  panel,
  assistants,
  server,
}) => {
  const assistant = await assistants.connect(uniqueName('e2e-preview'));
  const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    const result = (await assistant.client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    return result;
  };
  const first = await assistant.run('print("ready")');
  const sessionId = first.session_id;
  await call('write_file', { session_id: sessionId, path: 'sales.csv', content: SALES_CSV });
  await call('write_file', { session_id: sessionId, path: 'app.py', content: APP });
  await call('start_process', { session_id: sessionId, command: 'python3 app.py', name: 'sales dashboard' });
  const shown = await call('preview_port', {
    session_id: sessionId,
    port: 8000,
    wait_seconds: 30,
    path: `/?panel=${encodeURIComponent(server.url)}`,
  });
  const url = (shown.structuredContent as { url: string }).url;
  expect(new URL(url).origin).not.toBe(new URL(server.url).origin);
  expect(textOf(shown)).toContain("The person can open it from the Sandpit panel (the session's Preview tab)");

  const sessions = await panel.sessions();
  const session = await sessions.open(sessionId);
  await session.root.getByTestId('session-tab-processes').click();
  await expect(session.root.getByTestId('process-row')).toHaveAttribute('data-state', 'running');
  await expect(session.root.getByTestId('process-command')).toHaveText('python3 app.py');
  await expect(session.root.getByTestId('process-state')).toContainText('Running for');

  await session.root.getByTestId('session-tab-preview').click();
  await expect(session.root.getByTestId('preview-port')).toHaveAttribute('data-port', '8000');
  const frame = panel.page.frameLocator('[data-testid="preview-frame"]');
  await expect(frame.locator('h1')).toHaveText('Sales dashboard');
  await expect(frame.locator('#total')).toHaveText('Total: 250');
  await expect(frame.locator('[data-attack="done"]')).toBeVisible();
  for (const attack of [
    'panel-storage',
    'panel-local-storage',
    'panel-document',
    'api-without-credentials',
    'api-with-credentials',
    'mcp-endpoint',
  ]) {
    await expect(frame.locator(`[data-attack="${attack}"]`), attack).toHaveText(`${attack}: refused`);
  }
  // The panel still works, and its token is where it was.
  await expect(session.root.getByTestId('preview-origin')).toHaveText(new URL(url).origin);

  // Stopping the app ends the preview, and the tab says why.
  await session.root.getByTestId('session-tab-processes').click();
  await session.root.getByTestId('process-stop').click();
  await expect(session.root.getByTestId('process-state')).toHaveText('Stopped: the person stopped it in the panel');
  await session.root.getByTestId('session-tab-preview').click();
  await expect(session.root.getByTestId('previews-ended')).toContainText(
    'Preview of port 8000 ended: nothing listens on port 8000 any more (its app stopped)',
  );
});
