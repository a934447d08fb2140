'use strict';
/*
 * What the top-level declarations of a cell bind: the names in binding patterns (`{a, b: [c = 1], ...d}`),
 * the declarators of `let`/`const`/`var`, and the clauses of static `import` statements. Works on the tokens
 * of tokenizer.js; pure functions.
 */

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

/**
 * A static import statement at token k: {last, locals, spec, bare, def, ns, named}. `spec` is the module
 * specifier as written (a string literal), `bare` says it imports nothing (`import 'm'`), `def` and `ns` are
 * the default and namespace bindings, `named` holds [imported, local] pairs; `last` is its last token.
 */
function parseImport(toks, k) {
  let j = k + 1;
  const t = toks[j];
  if (!t) return undefined;
  if (t.type === 'str') return { last: j, locals: [], spec: t.value, bare: true, named: [] };
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
  return { last, locals, spec, bare: false, def, ns, named };
}

module.exports = { patternNames, declarators, parseImport };
