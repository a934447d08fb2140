#!/usr/bin/env node
'use strict';
/*
 * Sandpit's in-container JavaScript agent (protocol 1, see ../PROTOCOL.md).
 *
 * Keeps ONE persistent `vm` context between executions and speaks JSON lines with the host on a private
 * channel (a unix socket, or the original stdin/stdout). CommonJS, Node >= 18, no dependencies.
 * Runs as `node agent.js`.
 *
 * Threads. The main thread runs user code. A worker thread (the "I/O thread", same file) owns the channel
 * and the output pumps, so requests are read, interrupts delivered and output forwarded even while user
 * code keeps the main thread busy (`while (true) {}`).
 *
 * Output. Node cannot dup2(), but open() returns the lowest free descriptor: at start-up, before anything
 * touches stdio, the agent re-opens its original stdin/stdout through /proc/self/fd (private copies for
 * the channel), then closes fds 0/1/2 and re-opens them as /dev/null and the write ends of two FIFOs (made
 * with `mkfifo` in a private temporary directory — $TMPDIR, /tmp, /dev/shm — and unlinked at once). The
 * I/O thread reads the FIFOs. So everything written to fds 1/2 is captured at the fd level:
 * process.stdout/stderr and console (replaced by synchronous writers on fds 1/2), fs.writeSync(1, …), user
 * worker threads, and child processes that write to the stdio they inherit (`stdio: 'inherit'` or
 * process.stdout/stderr as stdio entries, fork(), detached or background children, shell pipelines and
 * their grandchildren) — as long as they write during an execution: output written between executions is
 * discarded. execSync's stderr is captured too (Node re-writes it to process.stderr when the child ends).
 * Output of children spawned with 'pipe' (the default for spawn/exec/execFile/spawnSync, and execSync's
 * stdout) goes to the parent code, as in Node; it is printed only if user code prints it.
 * Nothing user code prints can reach the channel; user code and its children read EOF on stdin.
 * Degraded modes, logged on the original stderr: if stdin/stdout cannot be re-opened (sockets, not the case
 * under Docker), the channel stays on fds 0/1 and a child inheriting them could corrupt it; if no FIFO can
 * be made, fds 1/2 are /dev/null and only in-process writes (process.stdout/stderr, console) are captured.
 *
 * Ordering. To send `display`, `result`, `error` and `done` after the output written before them, the main
 * thread posts a numbered "mark" to the I/O thread and then writes a sync marker with the same number into
 * both FIFOs (private write ends); the I/O thread releases the mark's messages once both pumps have read
 * past the marker. Execution boundaries are marks too, so output is attributed to an execution exactly.
 *
 * Top-level declarations. Each cell is compiled as a Script. A small tokenizer (strings, template
 * literals, regular expressions, comments, brackets) finds top-level statements:
 *   - without top-level `await`: top-level `let`/`const` become `var` and `class C {…}` becomes
 *     `var C = class C {…};`, so names persist as properties of the context and can be declared again in a
 *     later cell (as in a notebook; `const` is therefore not read-only across cells). The value of the last
 *     expression is the Script's completion value, as in the Node REPL.
 *   - with top-level `await` (or static `import`): the cell runs in an async arrow function; top-level
 *     names are hoisted as `var` outside it and declarations become assignments (`let {a} = o` ->
 *     `void ({a} = o)`, `class C` -> `C = class C …;`, `function f` -> `this.f = f; function f`, `for (var`
 *     -> `for (`, `import x, {y as z} from 'm'` -> `void ({default: x, y: z} = await import('m'))`); a last
 *     expression statement is returned. `var` inside nested blocks stays local to such a cell.
 * If a transformed cell fails to compile but the original compiles, the original is run as is.
 *
 * Interrupts. SIGINT (sent by the I/O thread on `interrupt`) stops synchronous code through the vm option
 * `breakOnSigint`; a pending `await` is abandoned (status interrupted; timers the cell created are
 * cleared). Code that keeps the thread busy after an `await` (outside the vm call) is stopped through an
 * in-process inspector session (Runtime.terminateExecution) from the I/O thread; if the main thread is
 * blocked in a synchronous child process (execSync), the agent's descendants are killed after a second.
 *
 * The context. Its globals are Node's (process, Buffer, timers, URL, TextEncoder, fetch, …) plus console
 * (on the captured streams), require (rooted at the workspace; NODE_PATH applies), display() and `_` (the
 * last result, until user code assigns `_`). process.exit()/reallyExit()/abort() throw a ProcessExit error
 * instead of ending the agent. It is a separate realm: objects made by Node's modules (fs.readdirSync's
 * arrays, their errors) fail `instanceof Array`/`instanceof Error` checks inside it (Array.isArray works).
 * display(obj) sends PNG/JPEG/GIF bytes, `<svg …>` strings and objects with _repr_png_/_repr_svg_/
 * _repr_html_ as rich output; anything else is printed on stdout (util.inspect), as the Python agent does.
 */

const fs = require('fs');
const path = require('path');
const util = require('util');
const { isMainThread, workerData } = require('worker_threads');

const PROTOCOL = 1;
const AGENT_FILE = __filename;
const READ_CHUNK = 65536; // stream messages carry at most this many bytes of output
const COALESCE_MS = 2; // output arriving within 2 ms is sent as one message
const MARK_TIMEOUT_MS = 5000;
const MAX_WALK = 20000;
const MAX_FILES = 1000;
const DEFAULT_LIMIT = 1 << 20;
const MIN_TEXT_LIMIT = 4096; // results and tracebacks are clipped to max(outputLimit, this) characters
const IMPORT_FN = '__sandpitImport'; // import(…) in cells is rewritten to this function of the context
const MARKER_PREFIX = '\u0000\u001b[sandpit-sync:';
const MARKER_SUFFIX = ']\u0000';
// Shared Int32Array slots between the main thread and the I/O thread.
const RUNNING = 0; // sequence number of the execution whose user code may be running (0: none)
const ACK = 1; // last sequence number whose interrupt the main thread has taken into account
const IN_VM = 2; // 1 while the main thread is inside vm's runInContext (breakOnSigint is armed)

let logFd = -1;

/** A diagnostic about the agent itself, on the original stderr (never the channel). */
function log(text) {
  if (logFd < 0) return;
  try {
    fs.writeSync(logFd, `sandpit-agent: ${text}\n`);
  } catch {
    // nowhere to report
  }
}

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Writes every byte of `data` to `fd` (retrying on EAGAIN). */
function writeAll(fd, data) {
  let off = 0;
  while (off < data.length) {
    try {
      off += fs.writeSync(fd, data, off, data.length - off);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      sleepMs(1);
    }
  }
}

function clip(text, limit) {
  const max = Math.max(limit, MIN_TEXT_LIMIT);
  return text.length <= max ? text : `${text.slice(0, max)}\u2026 [${text.length - max} more characters]`;
}

function markerBytes(secret, n) {
  return Buffer.from(`${MARKER_PREFIX}${secret}:${n}${MARKER_SUFFIX}`, 'latin1');
}

// ================================================================================================
// Source analysis: a tokenizer and the rewriting of top-level declarations (see the header).
// ================================================================================================

const PUNCTUATORS = [
  '>>>=',
  '...',
  '===',
  '!==',
  '**=',
  '<<=',
  '>>=',
  '>>>',
  '&&=',
  '||=',
  '??=',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '?.',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '**',
  '<<',
  '>>',
];
const SINGLE_PUNCT = '{}()[];,<>+-*/%&|^!~?:=.@#';
/** Keywords after which an expression starts (a `/` is a regex) and which never end an expression. */
const BEFORE_EXPRESSION = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
  'extends',
]);
const NO_EXPRESSION_END = new Set([
  ...BEFORE_EXPRESSION,
  'if',
  'for',
  'while',
  'with',
  'switch',
  'try',
  'catch',
  'finally',
  'var',
  'let',
  'const',
  'class',
  'function',
  'import',
  'export',
  'default',
]);
/** Punctuators that can continue an expression on the next line (no automatic semicolon before them). */
const CONTINUES = new Set([
  '(',
  '[',
  '.',
  '?.',
  ',',
  '?',
  ':',
  '=',
  '==',
  '===',
  '!=',
  '!==',
  '<',
  '>',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '**',
  '&',
  '|',
  '^',
  '&&',
  '||',
  '??',
  '<<',
  '>>',
  '>>>',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '**=',
  '&=',
  '|=',
  '^=',
  '<<=',
  '>>=',
  '>>>=',
  '&&=',
  '||=',
  '??=',
  '=>',
  ';',
  ')',
  ']',
  '}',
]);
const STATEMENT_KEYWORDS = new Set([
  'if',
  'for',
  'while',
  'do',
  'switch',
  'try',
  'throw',
  'return',
  'var',
  'let',
  'const',
  'class',
  'function',
  'break',
  'continue',
  'debugger',
  'with',
  'import',
  'export',
]);
const ID_START = /[\p{ID_Start}$_\\]/u;
const ID_PART = /[\p{ID_Continue}$\u200c\u200d\\]/u;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * Tokens of `src`: {type, value, start, end, depth, nl}. `type` is name, num, str, regex, punct, tpl (a
 * whole template or its tail), tplhead (up to the first `${`) or tplmid. `depth` counts the brackets
 * around the token (an opener and its closer are at the outer depth); `nl` says a line break precedes it.
 * `match[i]` is the index of the bracket matching token i. Never throws: invalid code tokenizes somehow
 * and is left to the compiler.
 */
function tokenize(src) {
  const toks = [];
  const match = [];
  const stack = []; // indices of open brackets (`${` is the tplhead/tplmid token)
  const n = src.length;
  let i = 0;
  let nl = false;
  if (src.startsWith('#!')) {
    while (i < n && !LINE_BREAK.test(src[i])) i++;
  }
  const prevSignificant = () => toks[toks.length - 1];
  const regexAllowed = () => {
    const p = prevSignificant();
    if (!p) return true;
    if (p.type === 'name') return BEFORE_EXPRESSION.has(p.value);
    if (p.type === 'punct')
      return !(p.value === ')' || p.value === ']' || p.value === '}' || p.value === '++' || p.value === '--');
    return p.type === 'tplhead' || p.type === 'tplmid';
  };
  const scanTemplate = (j) => {
    while (j < n) {
      const c = src[j];
      if (c === '\\') j += 2;
      else if (c === '`') return { end: j + 1, open: false };
      else if (c === '$' && src[j + 1] === '{') return { end: j + 2, open: true };
      else j++;
    }
    return { end: n, open: false };
  };
  while (i < n) {
    const c = src[i];
    if (LINE_BREAK.test(c)) {
      nl = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || /\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < n && !LINE_BREAK.test(src[i])) i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      let end = src.indexOf('*/', i + 2);
      end = end < 0 ? n : end + 2;
      if (LINE_BREAK.test(src.slice(i, end))) nl = true;
      i = end;
      continue;
    }
    const start = i;
    let type;
    let depth = stack.length;
    const top = stack.length ? toks[stack[stack.length - 1]] : undefined;
    if (c === '"' || c === "'") {
      i++;
      while (i < n && src[i] !== c && !(LINE_BREAK.test(src[i]) && src[i - 1] !== '\\')) i += src[i] === '\\' ? 2 : 1;
      i = Math.min(i + 1, n);
      type = 'str';
    } else if (c === '`') {
      const t = scanTemplate(i + 1);
      i = t.end;
      type = t.open ? 'tplhead' : 'tpl';
    } else if (c === '}' && top && (top.type === 'tplhead' || top.type === 'tplmid')) {
      const opener = stack.pop();
      depth = stack.length;
      const t = scanTemplate(i + 1);
      i = t.end;
      type = t.open ? 'tplmid' : 'tpl';
      match[opener] = toks.length;
      match[toks.length] = opener;
    } else if (ID_START.test(c) || (c === '#' && ID_START.test(src[i + 1] || ''))) {
      i++;
      while (i < n) {
        if (src[i] === '\\') i += src[i + 1] === 'u' && src[i + 2] === '{' ? src.indexOf('}', i) + 1 || n : 6;
        else if (ID_PART.test(src[i])) i++;
        else {
          const cp = src.codePointAt(i);
          if (cp > 0xffff && ID_PART.test(String.fromCodePoint(cp))) i += 2;
          else break;
        }
      }
      type = 'name';
    } else if ((c >= '0' && c <= '9') || (c === '.' && src[i + 1] >= '0' && src[i + 1] <= '9')) {
      const re = /(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?)n?/y;
      re.lastIndex = i;
      i = re.test(src) ? re.lastIndex : i + 1;
      type = 'num';
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      let ok = false;
      while (j < n && !LINE_BREAK.test(src[j])) {
        const d = src[j];
        if (d === '\\') j += 2;
        else {
          if (d === '[') inClass = true;
          else if (d === ']') inClass = false;
          else if (d === '/' && !inClass) {
            ok = true;
            j++;
            break;
          }
          j++;
        }
      }
      if (ok) {
        while (j < n && ID_PART.test(src[j])) j++;
        i = j;
        type = 'regex';
      } else {
        i += src[i + 1] === '=' ? 2 : 1;
        type = 'punct';
      }
    } else {
      let p = PUNCTUATORS.find((q) => src.startsWith(q, i));
      if (p === '?.' && src[i + 2] >= '0' && src[i + 2] <= '9') p = undefined;
      i += p ? p.length : 1;
      type = SINGLE_PUNCT.includes(c) || p ? 'punct' : 'other';
    }
    const value = src.slice(start, i);
    const tok = { type, value, start, end: i, depth, nl };
    nl = false;
    const index = toks.length;
    toks.push(tok);
    if (type === 'punct' && (value === '(' || value === '[' || value === '{')) stack.push(index);
    else if (type === 'tplhead' || type === 'tplmid') stack.push(index);
    else if (type === 'punct' && (value === ')' || value === ']' || value === '}') && stack.length) {
      const opener = stack.pop();
      tok.depth = stack.length;
      match[opener] = index;
      match[index] = opener;
    }
  }
  return { toks, match };
}

function endsExpression(tok) {
  if (!tok) return false;
  switch (tok.type) {
    case 'name':
      return !NO_EXPRESSION_END.has(tok.value);
    case 'num':
    case 'str':
    case 'regex':
    case 'tpl':
      return true;
    case 'punct':
      return tok.value === ')' || tok.value === ']' || tok.value === '}' || tok.value === '++' || tok.value === '--';
    default:
      return false;
  }
}

function continuesExpression(tok) {
  if (tok.type === 'punct') return CONTINUES.has(tok.value);
  if (tok.type === 'name') return tok.value === 'in' || tok.value === 'instanceof';
  return tok.type === 'tpl' || tok.type === 'tplhead';
}

/** Which depth-0 tokens start a statement (automatic semicolon insertion, approximated). */
function statementStarts(toks) {
  const starts = new Array(toks.length).fill(false);
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (t.depth !== 0) continue;
    if (t.type === 'punct' && (t.value === ')' || t.value === ']' || t.value === '}')) continue;
    if (t.type === 'tpl' && k > 0 && toks[k - 1].depth > 0) continue; // a template's tail
    if (t.type === 'tplmid') continue;
    const p = toks[k - 1];
    if (!p) starts[k] = true;
    else if (p.type === 'punct' && p.value === ';' && p.depth === 0) starts[k] = true;
    else if (t.nl && t.type === 'punct' && (t.value === '++' || t.value === '--')) starts[k] = true;
    else if (p.type === 'punct' && p.value === '}' && p.depth === 0 && !continuesExpression(t)) starts[k] = true;
    else if (t.nl && endsExpression(p) && !continuesExpression(t)) starts[k] = true;
  }
  return starts;
}

/** Names bound by the binding pattern that starts at token i (an identifier, `[…]` or `{…}`). */
function patternNames(toks, match, i, into) {
  const t = toks[i];
  if (!t) return;
  if (t.type === 'name') {
    into.push(t.value);
    return;
  }
  if (t.type !== 'punct' || (t.value !== '[' && t.value !== '{') || match[i] === undefined) return;
  const close = match[i];
  const inner = t.depth + 1;
  let a = i + 1;
  while (a < close) {
    let b = a;
    while (b < close && !(toks[b].depth === inner && toks[b].value === ',')) b++;
    if (b > a) {
      let p = a;
      if (toks[p].value === '...') p++;
      if (t.value === '{' && p === a) {
        let colon = -1;
        for (let q = a; q < b; q++) {
          if (toks[q].depth !== inner) continue;
          if (toks[q].value === '=') break;
          if (toks[q].value === ':') {
            colon = q;
            break;
          }
        }
        if (colon >= 0) patternNames(toks, match, colon + 1, into);
        else if (toks[p].type === 'name') into.push(toks[p].value);
      } else {
        patternNames(toks, match, p, into);
      }
    }
    a = b + 1;
  }
}

/**
 * The declarators of a `let`/`const`/`var` whose first binding is token i, at bracket depth `depth`.
 * Returns {decls: [{names, patEnd, hasInit}], last} where `last` is the index of the last token of the
 * declaration; `stop(k)` says token k (at `depth`) ends it.
 */
function declarators(toks, match, i, depth, stop) {
  const decls = [];
  let k = i;
  for (;;) {
    const b = toks[k];
    if (!b) return undefined;
    const names = [];
    let after;
    if (b.type === 'name') {
      names.push(b.value);
      after = k + 1;
    } else if (b.type === 'punct' && (b.value === '[' || b.value === '{') && match[k] !== undefined) {
      patternNames(toks, match, k, names);
      after = match[k] + 1;
    } else return undefined;
    const decl = { names, patEnd: toks[after - 1].end, hasInit: false };
    decls.push(decl);
    k = after;
    if (toks[k] && toks[k].depth === depth && toks[k].value === '=' && !stop(k)) {
      decl.hasInit = true;
      k++;
      while (toks[k] && !(toks[k].depth < depth) && !(toks[k].depth === depth && (toks[k].value === ',' || stop(k))))
        k++;
    }
    if (toks[k] && toks[k].depth === depth && toks[k].value === ',' && !stop(k)) {
      k++;
      continue;
    }
    return { decls, last: k - 1 };
  }
}

/** A static import statement at token k: {last, locals, expr} (expr builds the replacement). */
function parseImport(toks, k) {
  let j = k + 1;
  const t = toks[j];
  if (!t) return undefined;
  if (t.type === 'str') return { last: j, locals: [], expr: () => `await ${IMPORT_FN}(${t.value})` };
  let def;
  let ns;
  const named = [];
  if (t.type === 'name' && t.value !== 'from') {
    def = t.value;
    j++;
    if (toks[j] && toks[j].value === ',') j++;
    else if (!(toks[j] && toks[j].value === 'from')) return undefined;
  }
  if (toks[j] && toks[j].value === '*') {
    if (!(toks[j + 1] && toks[j + 1].value === 'as' && toks[j + 2] && toks[j + 2].type === 'name')) return undefined;
    ns = toks[j + 2].value;
    j += 3;
  } else if (toks[j] && toks[j].value === '{') {
    j++;
    while (toks[j] && toks[j].value !== '}') {
      const imported = toks[j];
      if (imported.type !== 'name' && imported.type !== 'str') return undefined;
      let local = imported.value;
      j++;
      if (toks[j] && toks[j].value === 'as' && toks[j + 1] && toks[j + 1].type === 'name') {
        local = toks[j + 1].value;
        j += 2;
      } else if (imported.type !== 'name') return undefined;
      named.push([imported.value, local]);
      if (toks[j] && toks[j].value === ',') j++;
    }
    if (!toks[j]) return undefined;
    j++;
  }
  if (!(toks[j] && toks[j].value === 'from' && toks[j + 1] && toks[j + 1].type === 'str')) return undefined;
  const spec = toks[j + 1].value;
  let last = j + 1;
  if (
    toks[last + 1] &&
    (toks[last + 1].value === 'with' || toks[last + 1].value === 'assert') &&
    toks[last + 2] &&
    toks[last + 2].value === '{' &&
    !toks[last + 1].nl
  ) {
    let q = last + 2;
    while (toks[q] && !(toks[q].value === '}' && toks[q].depth === toks[last + 2].depth)) q++;
    last = q;
  }
  const locals = [...(def ? [def] : []), ...(ns ? [ns] : []), ...named.map(([, local]) => local)];
  const expr = () => {
    const load = `await ${IMPORT_FN}(${spec})`;
    if (ns) return def ? `${ns} = ${load}, ${def} = ${ns}.default` : `${ns} = ${load}`;
    const props = [
      ...(def ? [`default: ${def}`] : []),
      ...named.map(([imp, local]) => (imp === local ? imp : `${imp}: ${local}`)),
    ];
    return `({${props.join(', ')}} = ${load})`;
  };
  return { last, locals, expr };
}

/**
 * Rewrites of a cell: {script, body, hoisted, hasAwait, hasImport, lastExpr} where `script` is the
 * source for the Script form, and `body` + `hoisted` + `lastExpr` make the async form (see asyncSource).
 */
function analyze(src) {
  const { toks, match } = tokenize(src);
  const starts = statementStarts(toks);
  const scriptEdits = [];
  const asyncEdits = [];
  const hoisted = [];
  let hasAwait = toks.some((t) => t.type === 'name' && t.value === 'await');
  let hasImport = false;
  const stopAtTop = (k) => toks[k].depth === 0 && ((toks[k].value === ';' && toks[k].type === 'punct') || starts[k]);
  // import(…) becomes the agent's loader: vm Scripts cannot import() without --experimental-vm-modules.
  toks.forEach((t, k) => {
    const next = toks[k + 1];
    const prev = toks[k - 1];
    if (
      t.type === 'name' &&
      t.value === 'import' &&
      next &&
      next.value === '(' &&
      !(prev && (prev.value === '.' || prev.value === '?.'))
    ) {
      scriptEdits.push([t.start, t.end, IMPORT_FN]);
      asyncEdits.push([t.start, t.end, IMPORT_FN]);
    }
  });
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (t.depth !== 0 || t.type !== 'name') continue;
    const next = toks[k + 1];
    const v = t.value;
    if (
      (v === 'var' || ((v === 'let' || v === 'const') && starts[k])) &&
      next &&
      (next.type === 'name'
        ? !['in', 'instanceof', 'of'].includes(next.value)
        : next.value === '[' || next.value === '{')
    ) {
      const parsed = declarators(toks, match, k + 1, 0, stopAtTop);
      if (!parsed) continue;
      if (v !== 'var') scriptEdits.push([t.start, t.end, 'var']);
      asyncEdits.push([t.start, t.end, 'void (']);
      for (const d of parsed.decls) {
        hoisted.push(...d.names);
        if (!d.hasInit) asyncEdits.push([d.patEnd, d.patEnd, v === 'var' ? ` = ${d.names[0]}` : ' = void 0']);
      }
      asyncEdits.push([toks[parsed.last].end, toks[parsed.last].end, ')']);
      k = parsed.last;
    } else if (v === 'class' && starts[k] && next && next.type === 'name' && next.value !== 'extends') {
      let body = k + 2;
      while (toks[body] && !(toks[body].depth === 0 && toks[body].value === '{')) body++;
      const close = match[body];
      if (close === undefined) continue;
      hoisted.push(next.value);
      scriptEdits.push([t.start, t.start, `var ${next.value} = `], [toks[close].end, toks[close].end, ';']);
      asyncEdits.push([t.start, t.start, `${next.value} = `], [toks[close].end, toks[close].end, ';']);
      k = close;
    } else if ((v === 'function' || (v === 'async' && next && next.value === 'function' && !next.nl)) && starts[k]) {
      let j = v === 'async' ? k + 2 : k + 1;
      if (toks[j] && toks[j].value === '*') j++;
      const name = toks[j];
      if (!name || name.type !== 'name') continue;
      hoisted.push(name.value);
      asyncEdits.push([t.start, t.start, `this.${name.value} = ${name.value}; `]);
    } else if (v === 'for' && next) {
      let j = k + 1;
      if (next.value === 'await') j++;
      const open = toks[j];
      const kw = toks[j + 1];
      if (!open || open.value !== '(' || !kw || kw.value !== 'var') continue;
      const stopInHead = (q) => toks[q].value === ';' || toks[q].value === 'of' || toks[q].value === 'in';
      const parsed = declarators(toks, match, j + 2, 1, stopInHead);
      if (!parsed) continue;
      for (const d of parsed.decls) hoisted.push(...d.names);
      asyncEdits.push([kw.start, kw.end, '']);
    } else if (v === 'import' && starts[k] && next && next.value !== '(' && next.value !== '.') {
      const parsed = parseImport(toks, k);
      if (!parsed) continue;
      hasImport = true;
      hasAwait = true;
      hoisted.push(...parsed.locals);
      const end = toks[parsed.last].end;
      const lines = (src.slice(t.start, end).match(/\r\n|[\n\r\u2028\u2029]/g) || []).length;
      asyncEdits.push([t.start, end, `void (${parsed.expr()})${'\n'.repeat(lines)}`]);
      k = parsed.last;
    }
  }
  // The last statement, when it is an expression statement, is the cell's value in the async form.
  let lastExpr;
  let lastTok = toks.length - 1;
  while (lastTok >= 0 && toks[lastTok].depth === 0 && toks[lastTok].value === ';') lastTok--;
  if (lastTok >= 0) {
    let first = lastTok;
    while (first > 0 && !starts[first]) first--;
    const f = toks[first];
    const second = toks[first + 1];
    const isLabel = f.type === 'name' && second && second.value === ':' && first + 1 <= lastTok;
    const isDeclaration =
      (f.value === 'let' && second && (second.type === 'name' || second.value === '[' || second.value === '{')) ||
      (f.value === 'async' && second && second.value === 'function');
    const isKeyword =
      f.type === 'name' &&
      STATEMENT_KEYWORDS.has(f.value) &&
      f.value !== 'let' &&
      !(f.value === 'import' && second && (second.value === '(' || second.value === '.'));
    if (
      starts[first] &&
      f.depth === 0 &&
      !isKeyword &&
      !(f.type === 'punct' && (f.value === '{' || f.value === ';')) &&
      !isLabel &&
      !isDeclaration
    ) {
      lastExpr = { start: f.start, end: toks[lastTok].end };
    }
  }
  return {
    script: applyEdits(src, scriptEdits),
    edits: asyncEdits,
    hoisted: [...new Set(hoisted)],
    hasAwait,
    hasImport,
    lastExpr,
  };
}

function applyEdits(src, edits) {
  const sorted = edits.map((e, index) => ({ e, index })).sort((a, b) => a.e[0] - b.e[0] || a.index - b.index);
  let out = '';
  let pos = 0;
  for (const { e } of sorted) {
    const [start, end, text] = e;
    if (start < pos) continue; // overlapping edit: ignore (never produced for valid code)
    out += src.slice(pos, start) + text;
    pos = end;
  }
  return out + src.slice(pos);
}

/** The async form of a cell: hoisted names, then the body in an async arrow function on the same line. */
function asyncSource(src, analysis, withValue) {
  const edits = analysis ? [...analysis.edits] : [];
  if (withValue && analysis && analysis.lastExpr) {
    edits.push(
      [analysis.lastExpr.start, analysis.lastExpr.start, 'return {value: ('],
      [analysis.lastExpr.end, analysis.lastExpr.end, ')}'],
    );
  }
  const names = analysis ? analysis.hoisted : [];
  const head = names.length ? `var ${names.join(', ')}; ` : '';
  return `${head}(async () => {${applyEdits(src, edits)}\n})()`;
}

/**
 * Compiles a cell. Returns {script, async}; throws the SyntaxError of the code as written.
 * Tried in order: rewritten Script, rewritten async form (with then without a returned value), the
 * original Script, the original async form.
 */
function compileCell(src, filename, options = {}) {
  const compile = (code) => {
    try {
      return new (require('vm').Script)(code, { filename, ...options });
    } catch (error) {
      return { error };
    }
  };
  let analysis;
  try {
    analysis = analyze(src);
  } catch (error) {
    log(`the cell could not be analysed: ${error && error.stack}`);
  }
  const plainAsync = asyncSource(src, undefined, false);
  const awaitLike = !analysis || analysis.hasAwait;
  const attempts = [];
  if (analysis && !analysis.hasImport) attempts.push([analysis.script, false]);
  if (analysis && analysis.hasAwait) {
    if (analysis.lastExpr) attempts.push([asyncSource(src, analysis, true), true]);
    attempts.push([asyncSource(src, analysis, false), true]);
  }
  attempts.push([src, false]);
  if (awaitLike) attempts.push([plainAsync, true]);
  let scriptError;
  let asyncError;
  for (const [code, isAsync] of attempts) {
    const script = compile(code);
    if (!script.error) return { script, async: isAsync, source: code };
    if (code === src) scriptError = script.error;
    if (code === plainAsync) asyncError = script.error;
  }
  // Report the error of the code as written: as a Script, unless that error is only about top-level
  // await / import (then the error of the async form points at the real problem).
  if (asyncError && /\bawait\b|\bimport\b/.test(String(scriptError && scriptError.message))) throw asyncError;
  throw scriptError;
}

// ================================================================================================
// The I/O thread: channel, output pumps, marks.
// ================================================================================================

function ioThread() {
  const net = require('net');
  const { parentPort } = require('worker_threads');
  const { StringDecoder } = require('string_decoder');
  const data = workerData;
  logFd = data.logFd;
  const shared = new Int32Array(data.shared);
  const secret = data.secret;
  const prefix = Buffer.from(`${MARKER_PREFIX}${secret}:`, 'latin1');
  const suffix = Buffer.from(MARKER_SUFFIX, 'latin1');

  // -- channel ----------------------------------------------------------------------------------
  let writer = null; // {write(line) -> bool, busy() -> bool}
  const waitingForDrain = new Set();

  function send(msg) {
    if (!writer) return;
    try {
      writer.write(`${JSON.stringify(msg)}\n`);
    } catch (error) {
      log(`send failed: ${error && error.message}`);
    }
  }

  function streamWriter(socket, onError) {
    socket.on('error', onError);
    socket.on('drain', () => {
      for (const resume of [...waitingForDrain]) resume();
      waitingForDrain.clear();
    });
    return {
      socket,
      write: (line) => socket.write(line),
      busy: () => socket.writableLength > 4 * 1024 * 1024,
      pending: () => socket.writableLength,
    };
  }

  function fdKind(fd) {
    try {
      const st = fs.fstatSync(fd);
      return st.isFIFO() || st.isSocket() ? 'pipe' : 'other';
    } catch {
      return 'bad';
    }
  }

  function lineReader(onLine) {
    let parts = [];
    return (chunk) => {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
        parts.push(chunk.subarray(start, nl));
        const line = Buffer.concat(parts).toString('utf8');
        parts = [];
        start = nl + 1;
        if (line.trim()) onLine(line);
      }
      if (start < chunk.length) parts.push(Buffer.from(chunk.subarray(start)));
    };
  }

  function dispatch(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return;
    const id = msg.id;
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) return;
    try {
      if (msg.type === 'hello') {
        send({
          type: 'hello',
          id,
          language: 'javascript',
          version: process.versions.node,
          pid: process.pid,
          protocol: PROTOCOL,
        });
      } else if (msg.type === 'execute' && typeof msg.code === 'string') {
        parentPort.postMessage({ k: 'execute', msg: { id, code: msg.code, outputLimit: msg.outputLimit } });
      } else if (msg.type === 'interrupt') {
        interrupt(id);
        parentPort.postMessage({ k: 'interrupt', id });
      }
    } catch (error) {
      log(`request failed: ${error && error.stack}`);
    }
  }

  let ending = false;
  function endOfChannel() {
    if (ending) return;
    ending = true;
    const deadline = Date.now() + 2000;
    const finish = () => {
      if (writer && writer.pending && writer.pending() > 0 && Date.now() < deadline) {
        setTimeout(finish, 10);
        return;
      }
      parentPort.postMessage({ k: 'exit' });
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1500).unref();
    };
    finish();
  }

  function startStdio() {
    const onError = (error) => {
      if (error && error.code !== 'EPIPE') log(`channel write failed: ${error.message}`);
      endOfChannel();
    };
    if (fdKind(data.outFd) === 'pipe') {
      writer = streamWriter(new net.Socket({ fd: data.outFd, readable: false, writable: true }), onError);
    } else {
      writer = {
        write: (line) => {
          try {
            writeAll(data.outFd, Buffer.from(line, 'utf8'));
          } catch (error) {
            onError(error);
          }
          return true;
        },
        busy: () => false,
      };
    }
    const feed = lineReader(dispatch);
    const input =
      fdKind(data.inFd) === 'pipe'
        ? new net.Socket({ fd: data.inFd, readable: true, writable: false })
        : fs.createReadStream(null, { fd: data.inFd, autoClose: false });
    input.on('data', feed);
    input.on('end', endOfChannel);
    input.on('error', (error) => {
      log(`channel read failed: ${error.message}`);
      endOfChannel();
    });
  }

  function startSocket(sockPath) {
    try {
      const st = fs.lstatSync(sockPath);
      if (!st.isDirectory()) fs.unlinkSync(sockPath);
    } catch {
      // nothing there
    }
    let current = null;
    const server = net.createServer((conn) => {
      if (current) current.destroy();
      current = conn;
      const w = streamWriter(conn, () => undefined);
      writer = w;
      conn.on('data', lineReader(dispatch));
      conn.on('close', () => {
        if (current === conn) {
          current = null;
          writer = null;
          for (const resume of [...waitingForDrain]) resume();
          waitingForDrain.clear();
        }
      });
    });
    server.on('error', (error) => log(`socket server: ${error.message}`));
    server.listen(sockPath, () => {
      try {
        fs.chmodSync(sockPath, 0o600);
      } catch (error) {
        log(`chmod ${sockPath}: ${error.message}`);
      }
    });
  }

  // -- interrupts -------------------------------------------------------------------------------
  const seqById = new Map();
  let inspectorSession;

  function terminateMainJs() {
    try {
      if (!inspectorSession) {
        const inspector = require('inspector');
        inspectorSession = new inspector.Session();
        inspectorSession.connectToMainThread();
      }
      inspectorSession.post('Runtime.terminateExecution', () => undefined);
    } catch (error) {
      log(`cannot stop the main thread's JavaScript: ${error && error.message}`);
      inspectorSession = null;
    }
  }

  /** SIGKILLs every descendant of this process (the whole tree is collected first: orphans escape). */
  function killDescendants() {
    const children = new Map(); // ppid -> [pid]
    let names = [];
    try {
      names = fs.readdirSync('/proc');
    } catch {
      return;
    }
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (fields[0] === 'Z') continue;
        const ppid = Number(fields[1]);
        if (!children.has(ppid)) children.set(ppid, []);
        children.get(ppid).push(Number(name));
      } catch {
        // gone
      }
    }
    const tree = [];
    const todo = [process.pid];
    while (todo.length) {
      for (const pid of children.get(todo.pop()) || []) {
        tree.push(pid);
        todo.push(pid);
      }
    }
    for (const pid of tree) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }

  function interrupt(id) {
    const seq = seqById.get(id);
    if (!seq || Atomics.load(shared, RUNNING) !== seq) return;
    const started = Date.now();
    let terminated = false;
    let childrenKilled = false;
    const pending = () => Atomics.load(shared, RUNNING) === seq && Atomics.load(shared, ACK) !== seq;
    const step = () => {
      if (!pending()) return;
      process.kill(process.pid, 'SIGINT');
      const elapsed = Date.now() - started;
      if (elapsed >= 250 && !terminated && Atomics.load(shared, IN_VM) === 0) {
        // Busy outside the vm call (in a callback after an await): breakOnSigint cannot see it.
        terminated = true;
        terminateMainJs();
      }
      if (elapsed >= 1000 && !childrenKilled) {
        // Blocked in a synchronous child process (execSync …): stop its tree so the thread comes back.
        childrenKilled = true;
        killDescendants();
      }
      if (elapsed < 60000) setTimeout(step, elapsed < 1000 ? 250 : 500);
    };
    step();
  }

  // -- pumps and marks --------------------------------------------------------------------------
  const marks = new Map(); // n -> {begin, end, then, dropped, timer}
  let released = 0; // every mark up to this one has been released
  const pumps = data.pumps.map((p) => ({
    name: p.name,
    eid: null,
    limit: 0,
    sent: 0,
    dropped: 0,
    decoder: null,
    text: '',
    textBytes: 0,
    timer: null,
    held: Buffer.alloc(0),
    seen: 0,
    blocked: null, // {n, rest}: a marker whose mark has not arrived yet
    source: null,
  }));
  const pumpByName = new Map(pumps.map((p) => [p.name, p]));

  function flushText(p) {
    if (p.timer) {
      clearTimeout(p.timer);
      p.timer = null;
    }
    if (p.text && p.eid !== null) send({ type: 'stream', id: p.eid, name: p.name, text: p.text });
    p.text = '';
    p.textBytes = 0;
  }

  function forward(p, buf) {
    if (!buf.length || p.eid === null) return; // output written while no execution runs is discarded
    const room = Math.max(p.limit - p.sent, 0);
    if (buf.length > room) {
      p.dropped += buf.length - room;
      buf = buf.subarray(0, room);
    }
    p.sent += buf.length;
    let off = 0;
    while (off < buf.length) {
      const take = Math.min(buf.length - off, READ_CHUNK - p.textBytes);
      p.text += p.decoder.write(buf.subarray(off, off + take));
      p.textBytes += take;
      off += take;
      if (p.textBytes >= READ_CHUNK) flushText(p);
    }
    if (p.text && !p.timer) p.timer = setTimeout(() => flushText(p), COALESCE_MS);
  }

  function applyMark(p, n, mark) {
    flushText(p);
    if (mark.end && p.eid !== null) {
      const rest = p.decoder.end();
      if (rest) send({ type: 'stream', id: p.eid, name: p.name, text: rest });
      mark.dropped[p.name] = p.dropped;
      p.eid = null;
    }
    if (mark.begin) {
      p.eid = mark.begin.id;
      p.limit = mark.begin.limit;
      p.sent = 0;
      p.dropped = 0;
      p.decoder = new StringDecoder('utf8');
    }
    p.seen = n;
  }

  /** The longest tail of `buf` that is a proper prefix of `prefix` (a marker split across reads). */
  function partialTail(buf) {
    const max = Math.min(buf.length, prefix.length - 1);
    for (let k = max; k > 0; k--) {
      if (buf.subarray(buf.length - k).equals(prefix.subarray(0, k))) return k;
    }
    return 0;
  }

  /**
   * Output of one pump: markers are cut out and applied. A pump stops at marker n until every pump has
   * read up to it and the mark's messages are sent, so output after a mark never overtakes them.
   */
  function feed(p, chunk) {
    if (p.blocked) {
      p.blocked.rest = Buffer.concat([p.blocked.rest, chunk]);
      return;
    }
    let buf = p.held.length ? Buffer.concat([p.held, chunk]) : chunk;
    p.held = Buffer.alloc(0);
    for (;;) {
      const at = buf.indexOf(prefix);
      if (at < 0) {
        const keep = partialTail(buf);
        forward(p, buf.subarray(0, buf.length - keep));
        if (keep) p.held = Buffer.from(buf.subarray(buf.length - keep));
        return;
      }
      const close = buf.indexOf(suffix, at + prefix.length);
      if (close < 0) {
        forward(p, buf.subarray(0, at));
        p.held = Buffer.from(buf.subarray(at));
        if (p.held.length > prefix.length + 32) {
          // not a marker after all
          forward(p, p.held);
          p.held = Buffer.alloc(0);
        }
        return;
      }
      const digits = buf.subarray(at + prefix.length, close).toString('latin1');
      if (!/^\d{1,15}$/.test(digits)) {
        forward(p, buf.subarray(0, at + 1));
        buf = buf.subarray(at + 1);
        continue;
      }
      forward(p, buf.subarray(0, at));
      const n = Number(digits);
      buf = buf.subarray(close + suffix.length);
      if (n <= p.seen) continue; // a mark that was forced already
      const mark = marks.get(n);
      if (mark) {
        applyMark(p, n, mark);
        release();
      }
      if (!mark || released < n) {
        p.blocked = { n, applied: Boolean(mark), rest: Buffer.from(buf) };
        if (p.source && p.source.pause) p.source.pause();
        return;
      }
    }
  }

  /** Lets blocked pumps go on when their mark has arrived / been released. */
  function wake() {
    let again = true;
    while (again) {
      again = false;
      for (const p of pumps) {
        const b = p.blocked;
        if (!b) continue;
        if (!b.applied && marks.has(b.n)) {
          b.applied = true;
          applyMark(p, b.n, marks.get(b.n));
          release();
          again = true;
        }
        if (b.applied && released >= b.n) {
          p.blocked = null;
          if (p.source && p.source.resume && !(writer && writer.busy())) p.source.resume();
          feed(p, b.rest);
          again = true;
        }
      }
    }
  }

  function release() {
    let progressed = false;
    for (;;) {
      const n = released + 1;
      const mark = marks.get(n);
      if (!mark || pumps.some((p) => p.seen < n)) break;
      clearTimeout(mark.timer);
      marks.delete(n);
      released = n;
      progressed = true;
      for (const msg of mark.then || []) {
        if (msg.type === 'done') msg.dropped = { stdout: mark.dropped.stdout || 0, stderr: mark.dropped.stderr || 0 };
        send(msg);
      }
    }
    if (progressed) setImmediate(wake);
  }

  function force(n) {
    const mark = marks.get(n);
    if (!mark) return;
    for (const p of pumps) {
      if (p.seen >= n) continue;
      log(`the ${p.name} marker ${n} did not arrive; going on without it`);
      if (p.blocked && !p.blocked.applied && p.blocked.n < n) {
        p.blocked.applied = true;
        applyMark(p, p.blocked.n, marks.get(p.blocked.n) || mark);
      }
      applyMark(p, n, mark);
    }
    release();
    wake();
  }

  function onMark(m) {
    const mark = { begin: m.begin, end: m.end, then: m.then, dropped: {} };
    if (m.begin) seqById.set(m.begin.id, m.begin.seq);
    if (m.end && m.endId !== undefined) seqById.delete(m.endId);
    marks.set(m.n, mark);
    mark.timer = setTimeout(() => force(m.n), MARK_TIMEOUT_MS);
    mark.timer.unref();
    wake();
    release();
  }

  function pauseForBackPressure() {
    if (!writer || !writer.busy()) return;
    for (const p of pumps) {
      if (p.source && p.source.pause) {
        p.source.pause();
        waitingForDrain.add(() => {
          if (!p.blocked && p.source && !(writer && writer.busy())) p.source.resume();
        });
      }
    }
  }

  for (const spec of data.pumps) {
    const p = pumpByName.get(spec.name);
    if (spec.fd === undefined || spec.fd < 0) continue; // fed by messages from the main thread
    const source = new net.Socket({ fd: spec.fd, readable: true, writable: false });
    p.source = source;
    source.on('data', (chunk) => {
      feed(p, chunk);
      pauseForBackPressure();
    });
    source.on('error', (error) => log(`${spec.name} pump: ${error.message}`));
  }

  parentPort.on('message', (m) => {
    try {
      if (m.k === 'mark') onMark(m);
      else if (m.k === 'force') force(m.n);
      else if (m.k === 'out') {
        const p = pumpByName.get(m.name);
        if (p) feed(p, Buffer.from(m.data));
      }
    } catch (error) {
      log(`I/O thread: ${error && error.stack}`);
    }
  });

  if (data.spec === 'stdio') startStdio();
  else startSocket(data.spec.slice('socket:'.length));
}

// ================================================================================================
// The main thread: start-up, the context, executions.
// ================================================================================================

/** Re-opens fd `fd` through /proc (a private copy for the channel); -1 when that is impossible (sockets). */
function reopen(fd, flags) {
  try {
    return fs.openSync(`/proc/self/fd/${fd}`, flags);
  } catch {
    return -1;
  }
}

/** Two FIFOs in a private temporary directory; returns their paths or undefined. */
function makeFifos() {
  const os = require('os');
  const { spawnSync } = require('child_process');
  const dirs = [...new Set([process.env.TMPDIR, os.tmpdir(), '/tmp', '/dev/shm', '/run/sandpit'].filter(Boolean))];
  for (const base of dirs) {
    let dir;
    try {
      dir = fs.mkdtempSync(path.join(base, 'sandpit-agent-'));
      fs.chmodSync(dir, 0o700);
      const out = path.join(dir, 'stdout');
      const err = path.join(dir, 'stderr');
      const made = spawnSync('mkfifo', ['-m', '600', out, err], { stdio: 'ignore' });
      if (made.status === 0 && fs.statSync(out).isFIFO() && fs.statSync(err).isFIFO()) return { dir, out, err };
    } catch {
      // try the next directory
    }
    try {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // leave it
    }
  }
  return undefined;
}

/** Closes fd `target` and opens `file` so that it lands there (open() returns the lowest free fd). */
function placeAt(target, file, flags) {
  try {
    fs.closeSync(target);
  } catch {
    // already closed
  }
  const fd = fs.openSync(file, flags);
  if (fd !== target) {
    fs.closeSync(fd);
    throw new Error(`could not place ${file} at fd ${target} (got ${fd})`);
  }
}

function main() {
  const { Worker } = require('worker_threads');
  const crypto = require('crypto');
  const { O_RDONLY, O_WRONLY, O_RDWR, O_APPEND } = fs.constants;
  const spec = process.env.SANDPIT_CHANNEL || 'stdio';
  logFd = reopen(2, O_WRONLY | O_APPEND);
  if (spec !== 'stdio' && !(spec.startsWith('socket:') && spec.length > 'socket:'.length)) {
    log(`unsupported SANDPIT_CHANNEL ${JSON.stringify(spec)}`);
    process.exit(2);
  }
  const workspace = process.env.SANDPIT_WORKSPACE || '/workspace';
  const realExit = process.reallyExit.bind(process);

  // -- claim the channel, then replace fds 0/1/2 (before anything touches process.stdout) --------
  let inFd = -1;
  let outFd = -1;
  let channelOnStdio = false; // the channel could not be moved: fds 0/1 stay the channel (degraded)
  if (spec === 'stdio') {
    inFd = reopen(0, O_RDONLY);
    outFd = reopen(1, O_WRONLY | O_APPEND);
    if (inFd < 0 || outFd < 0) {
      log(
        'stdin/stdout cannot be re-opened (sockets?): the channel stays on fds 0/1, so child processes that inherit fd 1 and raw writes to fd 1 would corrupt it',
      );
      if (inFd >= 0) fs.closeSync(inFd);
      if (outFd >= 0) fs.closeSync(outFd);
      inFd = 0;
      outFd = 1;
      channelOnStdio = true;
    }
  }
  const fifos = makeFifos();
  const pipes = {}; // name -> {read, priv (private write end), pub (fd user code writes to), ino}
  if (fifos) {
    for (const name of ['stdout', 'stderr']) {
      const file = fifos[name === 'stdout' ? 'out' : 'err'];
      pipes[name] = { read: fs.openSync(file, O_RDWR), priv: fs.openSync(file, O_WRONLY), ino: fs.statSync(file).ino };
    }
  } else {
    log(
      'no FIFO could be made (mkfifo missing or no writable temporary directory): output of child processes that inherit stdio is not captured',
    );
  }
  try {
    if (!channelOnStdio) placeAt(0, '/dev/null', O_RDWR);
    if (fifos) {
      if (!channelOnStdio) placeAt(1, fifos.out, O_WRONLY);
      placeAt(2, fifos.err, O_WRONLY);
    } else {
      if (!channelOnStdio) placeAt(1, '/dev/null', O_WRONLY);
      placeAt(2, '/dev/null', O_WRONLY);
    }
  } catch (error) {
    log(`setting up stdio failed: ${error.message}`);
  }
  if (fifos) {
    pipes.stdout.pub = channelOnStdio ? fs.openSync(`/proc/self/fd/${pipes.stdout.priv}`, O_WRONLY) : 1;
    pipes.stderr.pub = 2;
    fs.rmSync(fifos.dir, { recursive: true, force: true });
  }
  const devnullStat = fs.statSync('/dev/null');

  // -- the I/O thread -----------------------------------------------------------------------------
  const shared = new Int32Array(new SharedArrayBuffer(16));
  const secret = crypto.randomBytes(12).toString('hex');
  const worker = new Worker(__filename, {
    workerData: {
      sandpitIo: true,
      spec,
      inFd,
      outFd,
      logFd,
      secret,
      shared: shared.buffer,
      pumps: ['stdout', 'stderr'].map((name) => ({ name, fd: fifos ? pipes[name].read : -1 })),
    },
    stdout: true,
    stderr: true,
  });
  worker.stdout.on('data', (d) => log(`I/O thread stdout: ${d}`));
  worker.stderr.on('data', (d) => log(`I/O thread stderr: ${d}`));
  worker.on('error', (error) => {
    log(`the I/O thread failed: ${error && error.stack}`);
    realExit(1);
  });
  worker.on('exit', (code) => {
    log(`the I/O thread exited (${code})`);
    realExit(1);
  });

  // -- marks: ordering of messages after output ------------------------------------------------------
  let markCount = 0;
  function mark(fields) {
    const n = ++markCount;
    worker.postMessage({ k: 'mark', n, ...fields });
    const bytes = markerBytes(secret, n);
    for (const name of ['stdout', 'stderr']) {
      try {
        if (fifos) writeAll(pipes[name].priv, bytes);
        else worker.postMessage({ k: 'out', name, data: bytes });
      } catch (error) {
        log(`marker write failed: ${error.message}`);
        worker.postMessage({ k: 'force', n });
        return;
      }
    }
  }

  // -- process.stdout / stderr / stdin and exit ---------------------------------------------------------
  const { Writable, Readable } = require('stream');
  class FdWriter extends Writable {
    constructor(name) {
      super({ decodeStrings: true });
      this.streamName = name;
      this.fd = fifos ? pipes[name].pub : name === 'stdout' ? 1 : 2; // what a child given this stream inherits
      this.isTTY = false;
      this._isStdio = true;
      this._type = 'pipe';
    }
    _write(chunk, _encoding, callback) {
      try {
        if (fifos) writeAll(pipes[this.streamName].pub, chunk);
        else worker.postMessage({ k: 'out', name: this.streamName, data: Buffer.from(chunk) });
      } catch {
        // a closed or replaced fd: dropped (restored before the next execution)
      }
      callback();
    }
    end(chunk, encoding, callback) {
      // never ended: the same streams serve every execution
      if (typeof chunk === 'function') callback = chunk;
      else if (chunk !== undefined && chunk !== null)
        this.write(chunk, typeof encoding === 'string' ? encoding : undefined);
      if (typeof encoding === 'function') callback = encoding;
      if (typeof callback === 'function') process.nextTick(callback);
      return this;
    }
    destroy() {
      return this;
    }
    hasColors() {
      return false;
    }
    getColorDepth() {
      return 1;
    }
  }
  const stdout = new FdWriter('stdout');
  const stderr = new FdWriter('stderr');
  const stdin = new Readable({
    read() {
      this.push(null);
    },
  });
  stdin.fd = 0;
  stdin.isTTY = false;
  for (const [name, stream] of [
    ['stdout', stdout],
    ['stderr', stderr],
    ['stdin', stdin],
  ]) {
    Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream });
  }

  class ProcessExit extends Error {
    constructor(code) {
      super(`process.exit(${code === undefined ? '' : code}) was called; the session keeps running`);
      this.name = 'ProcessExit';
      this.exitCode = code;
    }
  }
  process.exit = function exit(code) {
    throw new ProcessExit(code === undefined ? process.exitCode : code);
  };
  process.reallyExit = function reallyExit(code) {
    throw new ProcessExit(code);
  };
  process.abort = function abort() {
    throw new ProcessExit('abort');
  };

  /** Undo what the previous execution may have done to fds 0/1/2. */
  function restoreStdio() {
    const want = [
      [0, () => !channelOnStdio, (st) => st.ino === devnullStat.ino && st.dev === devnullStat.dev, '/dev/null', O_RDWR],
      [
        1,
        () => fifos && !channelOnStdio,
        (st) => st.ino === pipes.stdout.ino,
        fifos && `/proc/self/fd/${pipes.stdout.priv}`,
        O_WRONLY,
      ],
      [2, () => fifos, (st) => st.ino === pipes.stderr.ino, fifos && `/proc/self/fd/${pipes.stderr.priv}`, O_WRONLY],
    ];
    for (const [fd, applies, ok, file, flags] of want) {
      if (!applies()) continue;
      let good = false;
      try {
        good = ok(fs.fstatSync(fd));
      } catch {
        // closed
      }
      if (good) continue;
      try {
        placeAt(fd, file, flags);
      } catch (error) {
        log(`cannot restore fd ${fd}: ${error.message}`);
      }
    }
  }

  // -- the context ------------------------------------------------------------------------------------
  const vm = require('vm');
  const Module = require('module');
  const sandbox = {};
  const context = vm.createContext(sandbox, { name: 'sandpit' });
  const contextGlobal = vm.runInContext('globalThis', context);
  const builtIn = new Set(vm.runInContext('Object.getOwnPropertyNames(globalThis)', context));
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (builtIn.has(name)) continue;
    const desc = Object.getOwnPropertyDescriptor(globalThis, name);
    if (desc) Object.defineProperty(sandbox, name, desc);
  }
  const userConsole = new console.Console({ stdout, stderr, colorMode: false });
  const userRequire = Module.createRequire(path.join(workspace, '<cell>'));

  // Timers created while an execution runs belong to it; an interrupted execution's timers are cleared.
  let currentSeq = 0;
  const liveTimers = new Map(); // handle -> {seq, clear}
  function tracked(create, clear) {
    const wrapped = function (callback, ...rest) {
      if (typeof callback !== 'function') return create(callback, ...rest);
      const seq = currentSeq;
      let handle;
      const once =
        create === setInterval
          ? callback
          : function (...args) {
              liveTimers.delete(handle);
              return callback.apply(this, args);
            };
      handle = create(once, ...rest);
      if (seq) liveTimers.set(handle, { seq, clear });
      return handle;
    };
    Object.defineProperty(wrapped, 'name', { value: create.name });
    if (create[util.promisify.custom]) wrapped[util.promisify.custom] = create[util.promisify.custom];
    return wrapped;
  }
  function untracked(clear) {
    return function (handle) {
      liveTimers.delete(handle);
      return clear(handle);
    };
  }
  function clearTimersOf(seq) {
    for (const [handle, timer] of [...liveTimers]) {
      if (timer.seq !== seq) continue;
      liveTimers.delete(handle);
      try {
        timer.clear(handle);
      } catch {
        // already gone
      }
    }
  }

  // -- rich output --------------------------------------------------------------------------------------
  let active = null; // the execution whose code runs: {id, seq, settle, interrupt}
  let handling = null; // id of the execution being handled (display messages are tagged with it)

  function asBuffer(value) {
    if (Buffer.isBuffer(value)) return value;
    if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    if (Object.prototype.toString.call(value) === '[object ArrayBuffer]') return Buffer.from(value);
    return undefined;
  }
  function imageMime(buf) {
    if (buf.length >= 8 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
      return 'image/png';
    if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg';
    if (buf.length >= 6 && /^GIF8[79]a$/.test(buf.subarray(0, 6).toString('latin1'))) return 'image/gif';
    return undefined;
  }
  const SVG_TEXT = /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>/]/i;
  /** [mime, data, encoding] for an object with a rich representation, else undefined. */
  function richRepr(obj) {
    if (obj === null || obj === undefined) return undefined;
    if (typeof obj === 'string') return SVG_TEXT.test(obj) ? ['image/svg+xml', obj, 'utf8'] : undefined;
    if (typeof obj !== 'object' && typeof obj !== 'function') return undefined;
    const buf = asBuffer(obj);
    if (buf) {
      const mime = imageMime(buf);
      return mime ? [mime, buf.toString('base64'), 'base64'] : undefined;
    }
    for (const [method, mime] of [
      ['_repr_png_', 'image/png'],
      ['_repr_svg_', 'image/svg+xml'],
      ['_repr_html_', 'text/html'],
    ]) {
      const fn = obj[method];
      if (typeof fn !== 'function') continue;
      let value = fn.call(obj);
      if (Array.isArray(value) && value.length) value = value[0]; // IPython's (data, metadata)
      const bytes = asBuffer(value);
      if (bytes)
        return mime === 'image/png'
          ? [mime, bytes.toString('base64'), 'base64']
          : [mime, bytes.toString('utf8'), 'utf8'];
      if (typeof value === 'string') return [mime, value, mime === 'image/png' ? 'base64' : 'utf8'];
    }
    return undefined;
  }
  function display(...objs) {
    for (const obj of objs) {
      const rich = richRepr(obj);
      if (!rich) {
        stdout.write(`${typeof obj === 'string' ? obj : util.inspect(obj)}\n`);
        continue;
      }
      if (handling === null) continue; // no execution to attach it to
      const [mime, data, encoding] = rich;
      mark({ then: [{ type: 'display', id: handling, mime, data, encoding }] });
    }
  }

  Object.assign(sandbox, {
    global: contextGlobal,
    console: userConsole,
    require: userRequire,
    process,
    display,
    setTimeout: tracked(setTimeout, clearTimeout),
    setInterval: tracked(setInterval, clearInterval),
    setImmediate: tracked(setImmediate, clearImmediate),
    clearTimeout: untracked(clearTimeout),
    clearInterval: untracked(clearInterval),
    clearImmediate: untracked(clearImmediate),
  });

  // import() inside cells: workspace-relative paths, packages from the workspace or NODE_PATH.
  const { pathToFileURL } = require('url');
  const importBases = [
    workspace,
    ...(process.env.NODE_PATH || '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((p) => path.dirname(p)),
  ];
  async function importModule(specifier) {
    const spec = String(specifier);
    if (Module.isBuiltin ? Module.isBuiltin(spec) : Module.builtinModules.includes(spec.replace(/^node:/, '')))
      return import(spec);
    if (/^(file:|data:)/.test(spec)) return import(spec);
    if (spec.startsWith('.') || path.isAbsolute(spec)) return import(pathToFileURL(path.resolve(workspace, spec)).href);
    let lastError;
    for (const base of importBases) {
      try {
        return import(pathToFileURL(Module.createRequire(path.join(base, '<cell>')).resolve(spec)).href);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }
  Object.defineProperty(sandbox, IMPORT_FN, { value: (specifier) => importModule(specifier), enumerable: false });
  // import() that the rewriting missed (in eval, new Function …): Node >= 21 can use the main loader.
  const scriptOptions =
    vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
      ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }
      : {};

  // The last result is `_` until user code assigns `_` itself.
  let underscoreAuto = true;
  let lastUnderscore;
  function setUnderscore(value) {
    if (!underscoreAuto) return;
    if (Object.prototype.hasOwnProperty.call(sandbox, '_') && sandbox._ !== lastUnderscore) {
      underscoreAuto = false;
      return;
    }
    sandbox._ = value;
    lastUnderscore = value;
  }

  // -- errors ------------------------------------------------------------------------------------------
  const backgroundErrors = [];
  function describe(error, compile) {
    let name = 'Uncaught';
    let value;
    let stack;
    try {
      if (
        error !== null &&
        (typeof error === 'object' || typeof error === 'function') &&
        typeof error.message === 'string'
      ) {
        name = typeof error.name === 'string' && error.name ? error.name : 'Error';
        value = error.message;
        stack = typeof error.stack === 'string' ? error.stack : undefined;
      } else {
        value = util.inspect(error);
      }
    } catch {
      value = '<the error could not be read>';
    }
    if (!stack) stack = `${name}: ${value}`;
    if (compile)
      stack = stack
        .split('\n')
        .filter((line) => !/^\s+at /.test(line))
        .join('\n');
    return { name, value, traceback: cleanStack(stack) };
  }
  function cleanStack(stack) {
    const lines = stack.split('\n');
    const isFrame = (line) => /^\s+at /.test(line);
    let lastCell = -1;
    lines.forEach((line, i) => {
      if (isFrame(line) && line.includes('<cell-')) lastCell = i;
    });
    return (
      lines
        .filter(
          (line, i) =>
            !isFrame(line) ||
            ((lastCell < 0 || i <= lastCell) &&
              !line.includes(AGENT_FILE) &&
              !/\(node:vm:|at node:vm:|\[as runInContext\]|Script\.runInContext/.test(line)),
        )
        .join('\n')
        .replace(/\s+$/, '') + '\n'
    );
  }
  function errorMessage(id, error, limit, compile) {
    const { name, value, traceback } = describe(error, compile);
    return { type: 'error', id, name, value: clip(value, limit), traceback: clip(traceback, limit) };
  }
  function report(kind, error) {
    if (active) {
      active.settle({ status: 'error', error });
      return;
    }
    if (handling !== null) {
      try {
        stderr.write(`${kind}: ${describe(error).traceback}`);
      } catch {
        // ignore
      }
      return;
    }
    if (backgroundErrors.length < 5) backgroundErrors.push([kind, error]);
  }
  const onUncaught = (error) => report('Uncaught exception', error);
  const onRejection = (reason) => report('Unhandled promise rejection', reason);
  const onSigint = () => {
    if (active) active.interrupt();
  };
  function ensureHandlers() {
    if (!process.listeners('uncaughtException').includes(onUncaught)) process.on('uncaughtException', onUncaught);
    if (!process.listeners('unhandledRejection').includes(onRejection)) process.on('unhandledRejection', onRejection);
    if (!process.listeners('SIGINT').includes(onSigint)) process.on('SIGINT', onSigint);
  }
  ensureHandlers();

  // -- files and processes --------------------------------------------------------------------------------
  function snapshotFiles(root) {
    const files = new Map();
    let seen = 0;
    const stack = [''];
    while (stack.length) {
      const rel = stack.pop();
      let entries;
      try {
        entries = fs.readdirSync(rel ? path.join(root, rel) : root, { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (++seen > MAX_WALK) return { files, complete: false };
        const p = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) stack.push(p);
        else if (entry.isFile()) {
          try {
            const st = fs.lstatSync(path.join(root, p), { bigint: true });
            if (st.isFile()) files.set(p, { size: Number(st.size), sig: `${st.size}:${st.mtimeNs}` });
          } catch {
            // gone
          }
        }
      }
    }
    return { files, complete: true };
  }

  const mayKillStrays = process.env.SANDPIT_KILL_STRAYS === '1' && (process.pid === 1 || process.ppid === 1);
  function nearPidsLimit() {
    for (const base of ['/sys/fs/cgroup/pids', '/sys/fs/cgroup']) {
      try {
        const current = Number(fs.readFileSync(`${base}/pids.current`, 'utf8').trim());
        const limit = fs.readFileSync(`${base}/pids.max`, 'utf8').trim();
        return /^\d+$/.test(limit) && current >= 0.75 * Number(limit);
      } catch {
        // try the next
      }
    }
    return false;
  }
  function killStrays() {
    let strays = 0;
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name) || Number(name) === 1 || Number(name) === process.pid) continue;
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
        if (stat[stat.lastIndexOf(')') + 2] !== 'Z') strays++;
      } catch {
        // gone
      }
    }
    if (strays) {
      try {
        process.kill(-1, 'SIGKILL'); // every process but this one and init
      } catch {
        // nothing left
      }
    }
    return strays;
  }

  // -- executions ------------------------------------------------------------------------------------------
  const queue = [];
  const accepted = new Set();
  const cancelled = new Set();
  let busy = false;
  let cells = 0;

  worker.on('message', (m) => {
    if (m.k === 'execute') {
      const { id } = m.msg;
      if (accepted.has(id)) return;
      accepted.add(id);
      queue.push(m.msg);
      if (!busy) drain();
    } else if (m.k === 'interrupt') {
      if (!accepted.has(m.id)) return;
      cancelled.add(m.id);
      if (active && active.id === m.id) active.interrupt();
    } else if (m.k === 'exit') {
      realExit(0);
    }
  });

  async function drain() {
    busy = true;
    while (queue.length) {
      const msg = queue.shift();
      try {
        await execute(msg);
      } catch (error) {
        log(`execution failed: ${error && error.stack}`);
        const finish = {
          type: 'done',
          id: msg.id,
          status: 'error',
          durationMs: 0,
          dropped: {},
          files: [],
          filesTruncated: false,
          straysKilled: 0,
        };
        mark({
          end: true,
          endId: msg.id,
          then: [
            {
              type: 'error',
              id: msg.id,
              name: 'AgentError',
              value: String(error),
              traceback: `AgentError: ${error}\n`,
            },
            finish,
          ],
        });
        accepted.delete(msg.id);
        cancelled.delete(msg.id);
        handling = null;
      }
    }
    busy = false;
  }

  function runCell(seq, id, code, filename) {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome) => {
        if (settled) return;
        settled = true;
        resolve(outcome);
        active = null;
        currentSeq = 0;
        Atomics.store(shared, RUNNING, 0);
      };
      const run = {
        id,
        seq,
        settle,
        interrupt: () => {
          Atomics.store(shared, ACK, seq);
          clearTimersOf(seq);
          settle({ status: 'interrupted' });
        },
      };
      if (cancelled.has(id)) {
        run.interrupt();
        return;
      }
      let compiled;
      try {
        compiled = compileCell(code, filename, scriptOptions);
      } catch (error) {
        settle({ status: 'error', error, compile: true });
        return;
      }
      active = run;
      currentSeq = seq;
      Atomics.store(shared, RUNNING, seq);
      let value;
      Atomics.store(shared, IN_VM, 1);
      try {
        value = compiled.script.runInContext(context, { breakOnSigint: true, displayErrors: false });
      } catch (error) {
        Atomics.store(shared, IN_VM, 0);
        if (error && error.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') run.interrupt();
        else settle({ status: 'error', error });
        return;
      }
      Atomics.store(shared, IN_VM, 0);
      if (compiled.async) {
        Promise.resolve(value).then(
          (r) =>
            settle(
              r && typeof r === 'object' && Object.prototype.hasOwnProperty.call(r, 'value')
                ? { status: 'ok', hasValue: r.value !== undefined, value: r.value }
                : { status: 'ok', hasValue: false },
            ),
          (error) => settle({ status: 'error', error }),
        );
      } else {
        // one turn of the event loop, so that a rejection the code left unhandled belongs to it
        setImmediate(() => settle({ status: 'ok', hasValue: value !== undefined, value }));
      }
    });
  }

  async function execute(msg) {
    const { id, code } = msg;
    let limit = msg.outputLimit;
    if (!Number.isInteger(limit) || limit < 0) limit = DEFAULT_LIMIT;
    const seq = ++cells;
    const filename = `<cell-${seq}>`;
    restoreStdio();
    ensureHandlers();
    const before = snapshotFiles(workspace);
    handling = id;
    mark({ begin: { id, seq, limit } });
    while (backgroundErrors.length) {
      const [kind, error] = backgroundErrors.shift();
      stderr.write(`[between executions] ${kind}: ${describe(error).traceback}`);
    }
    const started = performance.now();
    const outcome = await runCell(seq, id, code, filename);
    const duration = performance.now() - started;
    const messages = [];
    let status = outcome.status;
    if (status === 'error') {
      messages.push(errorMessage(id, outcome.error, limit, outcome.compile));
    } else if (status === 'interrupted') {
      messages.push({
        type: 'error',
        id,
        name: 'Interrupted',
        value: 'the execution was interrupted',
        traceback: 'Interrupted: the execution was interrupted\n',
      });
    } else if (outcome.hasValue) {
      try {
        const text = util.inspect(outcome.value, { colors: false, depth: 2 });
        setUnderscore(outcome.value);
        messages.push({ type: 'result', id, text: clip(text, limit) });
      } catch (error) {
        status = 'error';
        messages.push(errorMessage(id, error, limit));
      }
    }
    let strays = 0;
    // An execution that got an interrupt leaves no process behind, whatever its status (`cancelled` holds
    // every interrupt for this execution until it ends: one may land after the code finished).
    if (mayKillStrays && (status === 'interrupted' || cancelled.has(id) || nearPidsLimit())) strays = killStrays();
    const after = snapshotFiles(workspace);
    const changed = [...after.files.keys()]
      .filter((p) => !before.files.has(p) || before.files.get(p).sig !== after.files.get(p).sig)
      .sort();
    messages.push({
      type: 'done',
      id,
      status,
      durationMs: Math.round(duration * 1000) / 1000,
      dropped: { stdout: 0, stderr: 0 }, // filled in by the I/O thread
      files: changed.slice(0, MAX_FILES).map((p) => ({ path: p, size: after.files.get(p).size })),
      filesTruncated: changed.length > MAX_FILES || !after.complete || !before.complete,
      straysKilled: strays,
    });
    handling = null;
    mark({ end: true, endId: id, then: messages });
    accepted.delete(id);
    cancelled.delete(id);
  }
}

if (!isMainThread && workerData && workerData.sandpitIo) {
  ioThread();
} else if (require.main === module) {
  main();
}

module.exports = { tokenize, analyze, compileCell, asyncSource };
