/**
 * The console in the chat (issue 23, MCP Apps): one self-contained page served as `ui://sandpit/console`
 * (mimeType `text/html;profile=mcp-app`). It speaks the MCP Apps postMessage JSON-RPC protocol directly
 * (ui/initialize, ui/notifications/tool-input and tool-result, tools/call through the host): the
 * @modelcontextprotocol/ext-apps app bridge is not bundled. No network: inline script and style only.
 */
export const CONSOLE_APP_URI = 'ui://sandpit/console';
export const MCP_APP_MIME = 'text/html;profile=mcp-app';

/** The `_meta` a tool carries to link the console (MCP Apps: `_meta.ui.resourceUri`). */
export const CONSOLE_APP_META = { ui: { resourceUri: CONSOLE_APP_URI } } as const;

const SCRIPT = String.raw`
let id = 0; const waiting = new Map(); const out = document.getElementById('out');
function rpc(method, params) { return new Promise((ok, fail) => { const n = ++id; waiting.set(n, { ok, fail });
  parent.postMessage({ jsonrpc: '2.0', id: n, method, params }, '*'); setTimeout(() => { if (waiting.delete(n)) fail(new Error('timeout')); }, 60000); }); }
function el(tag, text) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; return e; }
function csv(text) { const rows = text.trim().split(/\r?\n/).map((l) => l.split(',')); return rows.length > 1 && rows[0].length > 1 && rows.every((r) => r.length === rows[0].length) ? rows : null; }
function table(rows) { const t = el('table'); const head = t.createTHead().insertRow(); const body = t.createTBody(); let dir = 1;
  rows[0].forEach((h, i) => { const th = el('th', h); th.onclick = () => { const r = [...body.rows]; dir = -dir;
    r.sort((a, b) => { const x = a.cells[i].textContent, y = b.cells[i].textContent; const nx = Number(x), ny = Number(y);
      return (isNaN(nx) || isNaN(ny) ? x.localeCompare(y) : nx - ny) * -dir; }); r.forEach((row) => body.appendChild(row)); }; head.appendChild(th); });
  rows.slice(1).forEach((r) => { const tr = body.insertRow(); r.forEach((c) => { tr.insertCell().textContent = c; }); }); return t; }
function showText(text) { const rows = csv(text); out.appendChild(rows ? table(rows) : el('pre', text)); }
let live = null;
async function poll(runId, since) { try { const r = await rpc('tools/call', { name: 'get_run', arguments: { run_id: runId, since, wait_seconds: 5 } });
    const s = r.structuredContent || {}; if (!live) { live = el('pre'); live.className = 'live'; out.appendChild(live); }
    live.textContent += s.output || ''; if (s.state === 'running' || s.state === 'queued' || s.more) poll(runId, s.cursor); else if (s.result) show({ structuredContent: s.result, content: [] });
  } catch (e) { out.appendChild(el('p', 'Could not check the run: ' + e.message)); } }
function picture(c) { const img = el('img'); img.alt = 'picture from the run'; img.src = 'data:' + c.mimeType + ';base64,' + c.data; out.appendChild(img); }
function showRun(s, content) { const head = el('p', s.status + (typeof s.duration_ms === 'number' ? ' in ' + s.duration_ms + ' ms' : '')); head.className = 'status'; out.appendChild(head);
  if (s.stdout) showText(s.stdout);
  if (s.stderr) { const e = el('pre', s.stderr); e.className = 'err'; out.appendChild(e); }
  if (s.error) { const e = el('pre', s.error.traceback || (s.error.name + ': ' + s.error.value)); e.className = 'err'; out.appendChild(e); }
  if (typeof s.result === 'string') { const v = el('p', 'Value: '); v.className = 'value'; v.appendChild(el('code', s.result)); out.appendChild(v); }
  for (const c of content) if (c.type === 'image') picture(c); }
function show(result) { const s = result.structuredContent || {};
  if (s.run_id && !s.result && !('exit_code' in s)) { out.appendChild(el('p', 'Running in the background…')); poll(s.run_id, 0); return; }
  if (typeof s.status === 'string' && typeof s.stdout === 'string') { showRun(s, result.content || []); return; }
  for (const c of result.content || []) { if (c.type === 'text') showText(c.text); else if (c.type === 'image') picture(c); } }
addEventListener('message', (ev) => { const m = ev.data; if (!m || m.jsonrpc !== '2.0') return;
  if (m.id !== undefined && waiting.has(m.id)) { const w = waiting.get(m.id); waiting.delete(m.id); if (m.error) w.fail(new Error(m.error.message)); else w.ok(m.result); return; }
  if (m.method === 'ui/notifications/tool-result') show(m.params || {}); });
rpc('ui/initialize', { protocolVersion: '2025-11-21', appInfo: { name: 'sandpit-console', version: '1' }, appCapabilities: {} })
  .then(() => parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }, '*')).catch(() => undefined);
`;

const STYLE = 'body{font:14px system-ui,sans-serif;margin:8px}pre{background:#111;color:#eee;padding:8px;white-space:pre-wrap}' +
  'pre.err{color:#f88}p.value code{font-weight:bold}img{max-width:100%}table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:2px 6px}th{cursor:pointer;background:#eee}';

export const CONSOLE_APP_HTML = '<!doctype html><html><head><meta charset="utf-8"><title>Sandpit console</title>' +
  '<style>' + STYLE + '</style></head><body><div id="out"></div><script>' + SCRIPT + '</script></body></html>';
