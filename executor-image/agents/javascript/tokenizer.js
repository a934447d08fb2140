'use strict';
/*
 * A small tokenizer for cells: strings, template literals (with nested `${…}`), regular expressions,
 * comments and brackets, enough to find the top-level statements of a cell (see cell-compiler.js). It never
 * throws: invalid code tokenizes somehow and is left to the compiler. Pure functions.
 */

const {
  PUNCTUATORS,
  SINGLE_PUNCT,
  BEFORE_EXPRESSION,
  NO_EXPRESSION_END,
  CONTINUES,
  ID_START,
  ID_PART,
  LINE_BREAK,
} = require('./syntax');

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

module.exports = { tokenize, statementStarts };
