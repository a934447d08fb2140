/**
 * The console's own script and style (issue 23, MCP Apps), inlined into the page after the ext-apps App class
 * (console-app.ts). It runs in the host's sandboxed frame under the spec's strictest CSP: no network, no eval, and it
 * never puts markup it received into its page — tables from HTML are read with DOMParser (an inert document) and only
 * their cells' text is shown.
 */

/** The `_meta` key of a tool result that carries a run's tables to the console (see console-tables.ts). */
export const TABLES_META_KEY = 'dev.sandpit/tables';

/** Rows a table shows at most (the rest are counted, not shown). */
export const MAX_TABLE_ROWS = 1_000;

export const CONSOLE_SCRIPT = String.raw`
const { App, PostMessageTransport, applyDocumentTheme, applyHostStyleVariables, applyHostFonts } = ExtApps;
const TABLES_KEY = '${TABLES_META_KEY}';
const MAX_ROWS = ${MAX_TABLE_ROWS};
const out = document.getElementById('out');
const app = new App({ name: 'Sandpit console', version: '1.0.0' }, {}, { autoResize: true });

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// The host's look: light or dark, its colours and fonts (ui/initialize, then ui/notifications/host-context-changed).
function applyContext(context) {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles && context.styles.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles && context.styles.css && context.styles.css.fonts) applyHostFonts(context.styles.css.fonts);
}

// CSV (RFC 4180: quoted fields may hold commas, quotes and line breaks).
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 1; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field); rows.push(row); row = []; field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) { row.push(field); rows.push(row); }
  return rows;
}

// Output that is all CSV (two rows and two columns at least, every row as wide as the first) becomes a table.
function csvOutput(text) {
  const rows = parseCsv(text.trim());
  const width = rows.length > 1 ? rows[0].length : 0;
  return width > 1 && rows.every((r) => r.length === width) ? { header: rows[0], rows: rows.slice(1) } : null;
}

function csvFile(text) {
  const rows = parseCsv(text.replace(/\s+$/, ''));
  return rows.length > 0 ? { header: rows[0], rows: rows.slice(1) } : null;
}

function cellTexts(row) {
  return [...row.cells].map((cell) => cell.textContent.trim());
}

// The tables of an HTML display (pandas' DataFrame, df.style …), read from an inert document (nothing in it loads or
// runs): the text of their cells only, scripts and styles left out.
function htmlTables(html) {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('script, style, template').forEach((node) => node.remove());
  return [...doc.querySelectorAll('table')].map((table) => {
    const head = table.tHead ? [...table.tHead.rows] : [];
    const body = [...table.tBodies].flatMap((b) => [...b.rows]);
    let header = head.length > 0 ? cellTexts(head[0]) : body.length > 0 && body[0].cells[0] && body[0].cells[0].tagName === 'TH' && [...body[0].cells].every((c) => c.tagName === 'TH') ? cellTexts(body.shift()) : [];
    // pandas puts a named index on a second header row: its name heads the index column.
    if (head.length > 1 && header[0] === '') header[0] = cellTexts(head[1])[0] || '';
    const rows = body.map(cellTexts);
    if (header.length === 0 && rows.length > 0) header = rows[0].map((_, i) => 'column ' + (i + 1));
    return header.length > 0 ? { header, rows } : null;
  }).filter(Boolean);
}

function numberOf(text) {
  const t = text.trim();
  return t === '' ? NaN : Number(t);
}

function compareCells(a, b) {
  if (a === '' || b === '') return a === b ? 0 : a === '' ? 1 : -1;
  const x = numberOf(a);
  const y = numberOf(b);
  if (!isNaN(x) && !isNaN(y)) return x - y;
  if (!isNaN(x) || !isNaN(y)) return isNaN(x) ? 1 : -1;
  return a.localeCompare(b, undefined, { numeric: true });
}

// A table sorted by a click on a column header (again: the other way), saying which way in aria-sort.
function sortableTable(data, caption) {
  const width = Math.max(data.header.length, ...data.rows.map((r) => r.length));
  const table = el('table');
  if (caption) table.createCaption().textContent = caption;
  const headRow = table.createTHead().insertRow();
  const body = table.createTBody();
  const shown = data.rows.slice(0, MAX_ROWS);
  const render = (rows) => body.replaceChildren(...rows.map((r) => {
    const tr = document.createElement('tr');
    for (let i = 0; i < width; i += 1) tr.appendChild(el('td', r[i] === undefined ? '' : r[i]));
    return tr;
  }));
  let sortedBy = -1;
  let direction = 1;
  const heads = [];
  for (let i = 0; i < width; i += 1) {
    const th = el('th');
    th.scope = 'col';
    const button = el('button', data.header[i] || '');
    button.type = 'button';
    button.onclick = () => {
      direction = sortedBy === i ? -direction : 1;
      sortedBy = i;
      heads.forEach((h, j) => (j === i ? h.setAttribute('aria-sort', direction > 0 ? 'ascending' : 'descending') : h.removeAttribute('aria-sort')));
      render([...shown].sort((a, b) => compareCells(a[i] || '', b[i] || '') * direction));
    };
    th.appendChild(button);
    heads.push(th);
    headRow.appendChild(th);
  }
  render(shown);
  const box = el('div', undefined, 'table');
  box.appendChild(table);
  if (data.rows.length > shown.length) box.appendChild(el('p', 'Showing the first ' + shown.length + ' of ' + data.rows.length + ' rows.', 'note'));
  return box;
}

function showText(text, className) {
  const table = csvOutput(text);
  out.appendChild(table ? sortableTable(table) : el('pre', text, className));
}

function showPictures(content) {
  for (const c of content || []) {
    if (c.type !== 'image') continue;
    const img = el('img');
    img.alt = 'picture from the run';
    img.src = 'data:' + c.mimeType + ';base64,' + c.data;
    out.appendChild(img);
  }
}

function showTables(meta) {
  const tables = (meta && Array.isArray(meta[TABLES_KEY])) ? meta[TABLES_KEY] : [];
  for (const t of tables) {
    if (!t || typeof t.text !== 'string') continue;
    const found = t.mime === 'text/csv' ? [csvFile(t.text)].filter(Boolean) : htmlTables(t.text);
    found.forEach((data, i) => out.appendChild(sortableTable(data, found.length > 1 ? t.name + ' (' + (i + 1) + ')' : t.name)));
  }
}

// A finished run (execute_code, run_file, or get_run's result) or command (run_command).
function showRun(s, content, meta) {
  const command = typeof s.exit_code === 'number' && s.status === undefined;
  const took = typeof s.duration_ms === 'number' ? ' in ' + s.duration_ms + ' ms' : '';
  out.appendChild(el('p', (command ? 'exit code ' + s.exit_code + (s.timed_out ? ' (timed out)' : '') : s.status) + took, 'status'));
  if (s.stdout) showText(s.stdout);
  if (s.stderr) out.appendChild(el('pre', s.stderr, 'err'));
  if (s.error) out.appendChild(el('pre', s.error.traceback || (s.error.name + ': ' + s.error.value), 'err'));
  if (s.message) out.appendChild(el('p', s.message, 'note'));
  if (typeof s.result === 'string') {
    const value = el('p', 'Value: ', 'value');
    value.appendChild(el('code', s.result));
    out.appendChild(value);
  }
  showPictures(content);
  showTables(meta);
}

// A background run: its output as it comes (get_run through the host, waiting for news), then its result.
async function follow(runId) {
  const state = el('p', 'Running in the background (' + runId + ')…', 'status');
  const live = el('pre', '', 'live');
  out.replaceChildren(state, live);
  let since = 0;
  for (;;) {
    let answer;
    try {
      answer = await app.callServerTool({ name: 'get_run', arguments: { run_id: runId, since, wait_seconds: 20 } }, { timeout: 60000 });
    } catch (error) {
      out.appendChild(el('p', 'Could not check the run: ' + (error && error.message ? error.message : String(error)), 'err'));
      return;
    }
    const s = answer.structuredContent || {};
    if (answer.isError) {
      out.appendChild(el('p', (answer.content || []).map((c) => c.text || '').join(' '), 'err'));
      return;
    }
    live.textContent += s.output || '';
    since = typeof s.cursor === 'number' ? s.cursor : since;
    if (s.state === 'done' && s.result) {
      state.remove();
      showRun(s.result, answer.content, answer._meta);
      return;
    }
    if (s.state === 'failed') {
      state.textContent = 'The run failed: ' + (s.error ? s.error.message : 'no reason given');
      return;
    }
  }
}

function show(result) {
  const s = result.structuredContent || {};
  out.replaceChildren();
  if (result.isError) { out.appendChild(el('pre', (result.content || []).map((c) => c.text || '').join('\n'), 'err')); return; }
  if (s.run_id && s.result) { showRun(s.result, result.content, result._meta); return; }
  if (s.run_id && (s.state === 'queued' || s.state === 'running')) { void follow(s.run_id); return; }
  if (typeof s.stdout === 'string') { showRun(s, result.content, result._meta); return; }
  for (const c of result.content || []) if (c.type === 'text') showText(c.text);
  showPictures(result.content);
}

function what(args) {
  const text = String((args && (args.code || args.command || args.path)) || '');
  const line = text.split('\n')[0];
  return line.length > 80 ? line.slice(0, 79) + '…' : line;
}

app.ontoolinput = (params) => {
  if (out.childElementCount === 0) out.appendChild(el('p', 'Running ' + what(params.arguments) + '…', 'status pending'));
};
app.ontoolresult = (result) => show(result);
app.onhostcontextchanged = (context) => applyContext(context);
app.onteardown = async () => ({});
app.connect(new PostMessageTransport(window.parent, window.parent))
  .then(() => applyContext(app.getHostContext()))
  .catch((error) => out.appendChild(el('p', 'The console could not connect to the chat: ' + (error && error.message ? error.message : String(error)), 'err')));
`;

/** The host's colours and fonts where it gives them (MCP Apps style variables), the browser's light or dark otherwise. */
export const CONSOLE_STYLE = [
  ':root{color-scheme:light dark;font-family:var(--font-sans,system-ui,sans-serif);font-size:var(--font-text-md-size,14px)}',
  'body{margin:8px;background:var(--color-background-primary,Canvas);color:var(--color-text-primary,CanvasText)}',
  'pre{font-family:var(--font-mono,ui-monospace,monospace);background:var(--color-background-secondary,rgba(127,127,127,.12));padding:8px;white-space:pre-wrap;overflow-wrap:anywhere;border-radius:var(--border-radius-sm,4px)}',
  '.err{color:var(--color-text-danger,#c62828)}.note,.pending{color:var(--color-text-secondary,GrayText)}',
  'p.value code{font-family:var(--font-mono,ui-monospace,monospace);font-weight:bold}img{max-width:100%}',
  '.table{overflow-x:auto;margin:8px 0}table{border-collapse:collapse}caption{text-align:left;font-weight:bold;padding:4px 0}',
  'th,td{border:1px solid var(--color-border-primary,rgba(127,127,127,.4));padding:2px 6px;text-align:left}',
  'th button{all:unset;cursor:pointer;font-weight:bold}th button:focus-visible{outline:2px solid var(--color-ring-primary,Highlight)}th[aria-sort=ascending] button::after{content:" ▲"}th[aria-sort=descending] button::after{content:" ▼"}',
].join('');
