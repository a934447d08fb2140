'use strict';
/*
 * The cell compiler: turns the source of a cell into a vm Script whose top-level names persist in the
 * context, as in a notebook. Pure functions (vm.Script is only constructed, never run).
 *
 * Each cell is compiled as a Script. The tokenizer (tokenizer.js) finds the top-level statements:
 *   - without top-level `await`: top-level `let`/`const` become `var` and `class C {…}` becomes
 *     `var C = class C {…};`, so names persist as properties of the context and can be declared again in a
 *     later cell (as in a notebook; `const` is therefore not read-only across cells). The value of the last
 *     expression is the Script's completion value, as in the Node REPL.
 *   - with top-level `await` (or static `import`): the cell runs in an async arrow function; top-level
 *     names are hoisted as `var` outside it and declarations become assignments (`let {a} = o` ->
 *     `void ({a} = o)`, `class C` -> `C = class C …;`, `function f` -> `this.f = f; function f`, `for (var`
 *     -> `for (`, `import x, {y as z} from 'm'` -> `void ({default: x, y: z} = await import('m'))`); a last
 *     expression statement is returned. `var` inside nested blocks stays local to such a cell.
 * `import(…)` anywhere in a cell becomes a call of IMPORT_FN, the context's loader (vm Scripts cannot
 * import() without --experimental-vm-modules; see context.js).
 * If a transformed cell fails to compile but the original compiles, the original is run as is.
 */

const vm = require('vm');
const { log } = require('./log');
const { STATEMENT_KEYWORDS } = require('./syntax');
const { tokenize, statementStarts } = require('./tokenizer');
const { declarators, parseImport } = require('./bindings');

const IMPORT_FN = '__sandpitImport'; // import(…) in cells is rewritten to this function of the context

/** The expression that replaces a static import statement (an assignment to its hoisted names). */
function importAssignment(imp) {
  const load = `await ${IMPORT_FN}(${imp.spec})`;
  if (imp.bare) return load;
  if (imp.ns) return imp.def ? `${imp.ns} = ${load}, ${imp.def} = ${imp.ns}.default` : `${imp.ns} = ${load}`;
  const props = [
    ...(imp.def ? [`default: ${imp.def}`] : []),
    ...imp.named.map(([imported, local]) => (imported === local ? imported : `${imported}: ${local}`)),
  ];
  return `({${props.join(', ')}} = ${load})`;
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
      asyncEdits.push([t.start, end, `void (${importAssignment(parsed)})${'\n'.repeat(lines)}`]);
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
 * Compiles a cell. Returns {script, async, source}; throws the SyntaxError of the code as written.
 * Tried in order: rewritten Script, rewritten async form (with then without a returned value), the
 * original Script, the original async form.
 */
function compileCell(src, filename, options = {}) {
  const compile = (code) => {
    try {
      return new vm.Script(code, { filename, ...options });
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

module.exports = { IMPORT_FN, tokenize, analyze, applyEdits, asyncSource, compileCell };
