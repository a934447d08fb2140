// Table-driven tests of the JavaScript agent's cell compiler (cell-compiler.js, with tokenizer.js and
// bindings.js): how top-level declarations, top-level await and imports are rewritten so that names persist
// in the vm context between cells, what is left alone, and which form compileCell picks.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';

interface Analysis {
  script: string;
  hoisted: string[];
  hasAwait: boolean;
  hasImport: boolean;
  lastExpr?: { start: number; end: number };
}
interface Token {
  type: string;
  value: string;
  depth: number;
}
interface CellCompiler {
  IMPORT_FN: string;
  tokenize: (src: string) => { toks: Token[]; match: number[] };
  analyze: (src: string) => Analysis;
  asyncSource: (src: string, analysis: Analysis | undefined, withValue: boolean) => string;
  compileCell: (
    src: string,
    filename: string,
    options?: vm.ScriptOptions,
  ) => { script: vm.Script; async: boolean; source: string };
}

const { IMPORT_FN, tokenize, analyze, asyncSource, compileCell } = createRequire(import.meta.url)(
  join(import.meta.dirname, 'cell-compiler.js'),
) as CellCompiler;

/** The async form of a cell, returning the value of its last expression statement when it has one. */
const asyncForm = (src: string): string => asyncSource(src, analyze(src), true);
/** What an async cell becomes: `var <hoisted>; (async () => {<body>\n})()`. */
const wrapped = (hoisted: string[], body: string): string =>
  `${hoisted.length ? `var ${hoisted.join(', ')}; ` : ''}(async () => {${body}\n})()`;

describe('the Script form (no top-level await): let/const/class become var', () => {
  it.each([
    // [cell, rewritten Script, hoisted names]
    ['let x = 1', 'var x = 1', ['x']],
    ['const x = 1', 'var x = 1', ['x']],
    ['var x = 1', 'var x = 1', ['x']],
    ['let a = 1, b = 2', 'var a = 1, b = 2', ['a', 'b']],
    ['let a, b', 'var a, b', ['a', 'b']],
    ['const f = (a, b) => a + b, g = [1, 2]', 'var f = (a, b) => a + b, g = [1, 2]', ['f', 'g']],
    ['let x = 1\nconst y = x\nx + y', 'var x = 1\nvar y = x\nx + y', ['x', 'y']],
    ['const x = 1; let y = 2;', 'var x = 1; var y = 2;', ['x', 'y']],
    [
      'const {a, b: c, d = 1, e: {f} = {}, ...rest} = o',
      'var {a, b: c, d = 1, e: {f} = {}, ...rest} = o',
      ['a', 'c', 'd', 'f', 'rest'],
    ],
    ['const [a, , b = 2, [c], ...d] = arr', 'var [a, , b = 2, [c], ...d] = arr', ['a', 'b', 'c', 'd']],
    ["let {'quoted': q, [key]: k} = o", "var {'quoted': q, [key]: k} = o", ['q', 'k']],
    ['const {a: {b: [c = {d: 1}]}} = o', 'var {a: {b: [c = {d: 1}]}} = o', ['c']],
    ['class A {}', 'var A = class A {};', ['A']],
    ['class A extends B {}', 'var A = class A extends B {};', ['A']],
    [
      'class A extends B { m() { return `${this.x} and ${`nested ${1}`}` } }',
      'var A = class A extends B { m() { return `${this.x} and ${`nested ${1}`}` } };',
      ['A'],
    ],
    ["class A { static s = '}'; #p = 1 }\nnew A()", "var A = class A { static s = '}'; #p = 1 };\nnew A()", ['A']],
    ['class A extends mixin(B, {c: 1}) {}', 'var A = class A extends mixin(B, {c: 1}) {};', ['A']],
    // functions are already var-like in a Script: left as they are
    ['function f() { return 1 }', 'function f() { return 1 }', ['f']],
    ['async function f() {}', 'async function f() {}', ['f']],
    ['function* g() { yield 1 }', 'function* g() { yield 1 }', ['g']],
    ['async function* g() {}', 'async function* g() {}', ['g']],
    // nested declarations stay where they are
    ['{ let x = 1 }', '{ let x = 1 }', []],
    ['if (a) { const y = 2 } else { class Z {} }', 'if (a) { const y = 2 } else { class Z {} }', []],
    ['for (let i = 0; i < 2; i++) {}', 'for (let i = 0; i < 2; i++) {}', []],
    ['function f() { let inner = 1; return inner }', 'function f() { let inner = 1; return inner }', ['f']],
    ['const x = 1; { const x = 2 }', 'var x = 1; { const x = 2 }', ['x']],
    // `let` as an identifier, and expressions that are not declarations
    ['let = 5', 'let = 5', []],
    ['a = class B {}', 'a = class B {}', []],
    ['(class C {})', '(class C {})', []],
  ] as const)('%j', (src, script, hoisted) => {
    const a = analyze(src);
    expect(a.script).toBe(script);
    expect(a.hoisted).toEqual(hoisted);
    expect(a.hasAwait).toBe(false);
    expect(a.hasImport).toBe(false);
  });
});

describe('the async form (top-level await): names hoisted, declarations become assignments', () => {
  it.each([
    // [cell, hoisted names, body of the async arrow function]
    ['await 1', [], 'return {value: (await 1)}'],
    ['await f(); await g()', [], 'await f(); return {value: (await g())}'],
    ['const r = await f()', ['r'], 'void ( r = await f())'],
    ['let a = await p, b', ['a', 'b'], 'void ( a = await p, b = void 0)'],
    ['var v = await p, w', ['v', 'w'], 'void ( v = await p, w = w)'],
    ['const {a, b: [c]} = await o', ['a', 'c'], 'void ( {a, b: [c]} = await o)'],
    ['let [x = 1, ...ys] = await list()', ['x', 'ys'], 'void ( [x = 1, ...ys] = await list())'],
    ['const r = await f()\nr + 1', ['r'], 'void ( r = await f())\nreturn {value: (r + 1)}'],
    ['const r = await f();\nr;', ['r'], 'void ( r = await f());\nreturn {value: (r)};'],
    [
      'class C extends B { m() { return `${1}` } }\nawait 0',
      ['C'],
      'C = class C extends B { m() { return `${1}` } };\nreturn {value: (await 0)}',
    ],
    ['function f() {}\nawait 0', ['f'], 'this.f = f; function f() {}\nreturn {value: (await 0)}'],
    [
      'async function f() { return 1 }\nawait f()',
      ['f'],
      'this.f = f; async function f() { return 1 }\nreturn {value: (await f())}',
    ],
    ['function* g() {}\nawait 0', ['g'], 'this.g = g; function* g() {}\nreturn {value: (await 0)}'],
    ['async function* g() {}\nawait 0', ['g'], 'this.g = g; async function* g() {}\nreturn {value: (await 0)}'],
    ['for (var i = 0; i < 2; i++) await i', ['i'], 'for ( i = 0; i < 2; i++) await i'],
    ['for await (const n of xs) {}', [], 'for await (const n of xs) {}'],
    ['for await (var n of xs) total += n', ['n'], 'for await ( n of xs) total += n'],
    ['for (var k in o) await k', ['k'], 'for ( k in o) await k'],
    // var in a nested block stays local to the async function
    ['await 0; { var local = 1 }', [], 'await 0; { var local = 1 }'],
    // a last statement that is a declaration or a control statement has no value
    ['await 0\nlet z = 1', ['z'], 'await 0\nvoid ( z = 1)'],
    ['await 0\nif (a) b', [], 'await 0\nif (a) b'],
    ['await 0\nlabel: x', [], 'await 0\nlabel: x'],
  ] as const)('%j', (src, hoisted, body) => {
    const a = analyze(src);
    expect(a.hasAwait).toBe(true);
    expect(a.hoisted).toEqual(hoisted);
    expect(asyncForm(src)).toBe(wrapped([...hoisted], body));
  });

  it.each([
    ['await 1', '(async () => {await 1\n})()'],
    ['const r = await f()\nr + 1', 'var r; (async () => {void ( r = await f())\nr + 1\n})()'],
  ])('without a value: %j', (src, expected) => {
    expect(asyncSource(src, analyze(src), false)).toBe(expected);
  });

  it('wraps the code unchanged without an analysis (the last resort of compileCell)', () => {
    expect(asyncSource('let x = await 1', undefined, true)).toBe('(async () => {let x = await 1\n})()');
  });
});

describe('static imports become assignments from the agent loader', () => {
  it.each([
    // [cell, hoisted names, body of the async arrow function (without a returned value)]
    ["import fs from 'node:fs'", ['fs'], `void (({default: fs} = await ${IMPORT_FN}('node:fs')))`],
    ["import {a, b as c} from 'm'", ['a', 'c'], `void (({a, b: c} = await ${IMPORT_FN}('m')))`],
    ["import {'str name' as s} from 'm'", ['s'], `void (({'str name': s} = await ${IMPORT_FN}('m')))`],
    ["import * as ns from 'm'", ['ns'], `void (ns = await ${IMPORT_FN}('m'))`],
    ['import "side-effect"', [], `void (await ${IMPORT_FN}("side-effect"))`],
    ["import d, {x} from 'm'", ['d', 'x'], `void (({default: d, x} = await ${IMPORT_FN}('m')))`],
    ["import d, * as ns from 'm'", ['d', 'ns'], `void (ns = await ${IMPORT_FN}('m'), d = ns.default)`],
    [
      "import json from './d.json' with { type: 'json' }",
      ['json'],
      `void (({default: json} = await ${IMPORT_FN}('./d.json')))`,
    ],
    // the replacement keeps the line count, so later line numbers in stack traces stay right
    ["import {\n  a,\n  b as c\n} from 'm'\na", ['a', 'c'], `void (({a, b: c} = await ${IMPORT_FN}('m')))\n\n\n\na`],
    [
      "import path, {join as j} from 'node:path'\nimport 'x'\nj('a', path.sep)",
      ['path', 'j'],
      `void (({default: path, join: j} = await ${IMPORT_FN}('node:path')))\nvoid (await ${IMPORT_FN}('x'))\nj('a', path.sep)`,
    ],
  ] as const)('%j', (src, hoisted, body) => {
    const a = analyze(src);
    expect(a).toMatchObject({ hasImport: true, hasAwait: true, hoisted });
    expect(asyncSource(src, a, false)).toBe(wrapped([...hoisted], body));
    // a cell with a static import always runs in the async form
    const compiled = compileCell(src, '<cell-t>');
    expect(compiled.async).toBe(true);
    expect(compiled.source).toContain(body.split('\n')[0]);
  });

  it.each([
    // [cell, rewritten Script]: import(…) is rewritten everywhere, in both forms
    ["import('m').then(f)", `${IMPORT_FN}('m').then(f)`],
    ["const m = import('m')", `var m = ${IMPORT_FN}('m')`],
    ['f(() => import(`./${name}.js`))', `f(() => ${IMPORT_FN}(\`./\${name}.js\`))`],
    // not import(…): a method called import, a property, import.meta
    ["obj.import('x')", "obj.import('x')"],
    ["obj?.import('x')", "obj?.import('x')"],
    ['import.meta.url', 'import.meta.url'],
    ["'import(x)'", "'import(x)'"],
  ])('dynamic import in %j', (src, script) => {
    const a = analyze(src);
    expect(a.script).toBe(script);
    expect(a.hasImport).toBe(false);
    expect(a.hasAwait).toBe(false);
  });

  it('rewrites import(…) in the async form too', () => {
    expect(asyncForm("const m = await import('node:path')")).toBe(
      wrapped(['m'], `void ( m = await ${IMPORT_FN}('node:path'))`),
    );
  });
});

describe('code-like text in strings, templates, regular expressions and comments is left alone', () => {
  it.each([
    // [cell, rewritten Script, hoisted names]
    ["'let x = 1'", "'let x = 1'", []],
    ['"const y = 2; class Z {}"', '"const y = 2; class Z {}"', []],
    ["'it\\'s; let a = 1'", "'it\\'s; let a = 1'", []],
    ['// let x = 1\n1', '// let x = 1\n1', []],
    ['/* class A {} */ 2', '/* class A {} */ 2', []],
    ['`let ${"const q = 1"} = ${`nested ${"await"}`}`', '`let ${"const q = 1"} = ${`nested ${"await"}`}`', []],
    ['`${ {a: "}"}.a }; let t = 1`', '`${ {a: "}"}.a }; let t = 1`', []],
    ['`a \\` let x = 1 \\${ let y }`; let after = 1', '`a \\` let x = 1 \\${ let y }`; var after = 1', ['after']],
    ['`a ${ `b ${ `c` }` }`; let after = 1', '`a ${ `b ${ `c` }` }`; var after = 1', ['after']],
    ['/let x = 1;"\'\\//.test(s)', '/let x = 1;"\'\\//.test(s)', []],
    ['const re = /[/]await/g', 'var re = /[/]await/g', ['re']],
    ['const re = /[\'"`]/; let q = 1', 'var re = /[\'"`]/; var q = 1', ['re', 'q']],
    ['a / b / c; let z = 1', 'a / b / c; var z = 1', ['z']],
    ['x = y / 2 // let w = 3\nlet v = 4', 'x = y / 2 // let w = 3\nvar v = 4', ['v']],
    ['#!/usr/bin/env node\nlet x = 1', '#!/usr/bin/env node\nvar x = 1', ['x']],
  ] as const)('%j', (src, script, hoisted) => {
    const a = analyze(src);
    expect(a.script).toBe(script);
    expect(a.hoisted).toEqual(hoisted);
    expect(a.hasAwait).toBe(false);
  });

  it.each([
    // `await` that is not top-level await: no async form
    ['// await x\nlet y = 1'],
    ['/* await */ 1'],
    ["'await 1'"],
    ['`${"await"}`'],
    ['/await/.test(s)'],
  ])('%j has no top-level await', (src) => {
    expect(analyze(src).hasAwait).toBe(false);
    expect(compileCell(src, '<cell-t>').async).toBe(false);
  });

  it.each([
    // [cell, [type, value] of every token]
    [
      "'a;b' + x",
      [
        ['str', "'a;b'"],
        ['punct', '+'],
        ['name', 'x'],
      ],
    ],
    [
      '`a${b}c${`d`}e`',
      [
        ['tplhead', '`a${'],
        ['name', 'b'],
        ['tplmid', '}c${'],
        ['tpl', '`d`'],
        ['tpl', '}e`'],
      ],
    ],
    [
      'x = /[/]"/g',
      [
        ['name', 'x'],
        ['punct', '='],
        ['regex', '/[/]"/g'],
      ],
    ],
    [
      'a / b',
      [
        ['name', 'a'],
        ['punct', '/'],
        ['name', 'b'],
      ],
    ],
    [
      'return /x/',
      [
        ['name', 'return'],
        ['regex', '/x/'],
      ],
    ],
    [
      '0x1f + 1.5e3 + 10n + .5',
      [
        ['num', '0x1f'],
        ['punct', '+'],
        ['num', '1.5e3'],
        ['punct', '+'],
        ['num', '10n'],
        ['punct', '+'],
        ['num', '.5'],
      ],
    ],
    [
      'a?.b ?? c',
      [
        ['name', 'a'],
        ['punct', '?.'],
        ['name', 'b'],
        ['punct', '??'],
        ['name', 'c'],
      ],
    ],
    ['/* c */ x // d', [['name', 'x']]],
  ] as const)('tokenizes %j', (src, tokens) => {
    expect(tokenize(src).toks.map((t) => [t.type, t.value])).toEqual(tokens);
  });
});

describe('compileCell', () => {
  it.each([
    // [cell, async form?, compiled source]
    ['let x = 1\nx', false, 'var x = 1\nx'],
    ['const r = await f()\nr', true, 'var r; (async () => {void ( r = await f())\nreturn {value: (r)}\n})()'],
    // a static import ending the cell: the form with a value does not compile, the one without does
    [
      "import d, {x} from 'm'",
      true,
      `var d, x; (async () => {void (({default: d, x} = await ${IMPORT_FN}('m')))\n})()`,
    ],
    // declared twice in one cell: var, as in a notebook (no redeclaration error)
    ['let x = 1; let x = 2', false, 'var x = 1; var x = 2'],
    // `await` as an identifier (sloppy Script): the Script form compiles first
    ['var await = 1; await', false, 'var await = 1; await'],
  ] as const)('compiles %j', (src, isAsync, source) => {
    const compiled = compileCell(src, '<cell-t>');
    expect(compiled.async).toBe(isAsync);
    expect(compiled.source).toBe(source);
    expect(compiled.script).toBeInstanceOf(vm.Script);
  });

  it.each([
    // The tokenizer takes the regex after `if (ok)` for a division, so it sees the template literal inverted:
    // the `class X` inside it looks like a declaration whose body is `{a: 1}`, and `;` lands inside `x = {a: 1}; || 2`.
    ['if (ok) /`/.test(s)\nconst t = `; class X `\n// `\nx = {a: 1} || 2', false, 'x = {a: 1}; || 2'],
    // The same with top-level await: the async form gets an unbalanced `)`; the original runs as an async function.
    ['await 0\nif (x) /`/.test(a)\nconst s = `; let z = 1`\ns', true, 's)'],
  ] as const)(
    'falls back to the original code when the rewritten cell does not compile: %j',
    (src, isAsync, broken) => {
      const a = analyze(src);
      const rewritten = isAsync ? asyncSource(src, a, false) : a.script;
      expect(rewritten).toContain(broken);
      expect(() => new vm.Script(rewritten)).toThrow(SyntaxError);
      const compiled = compileCell(src, '<cell-t>');
      expect(compiled.async).toBe(isAsync);
      expect(compiled.source).toBe(isAsync ? asyncSource(src, undefined, false) : src);
    },
  );

  it.each([
    // [cell, message of the SyntaxError thrown]: the error of the code as written
    ['x = (', /Unexpected end of input/],
    ['class {}', /Unexpected token '\{'/],
    ['let x = 1; x +* 2', /Unexpected token '\*'/],
    // not "await is only valid in async functions": the async form's error points at the real problem
    ['await 1\nlet = ;', /Unexpected token ';'/],
  ])('throws the SyntaxError of %j', (src, message) => {
    expect(() => compileCell(src, '<cell-t>')).toThrow(message);
  });
});

describe('rewritten cells keep their names in the context across cells', () => {
  /** Runs cells one after the other in one fresh context, as the agent does; returns the last value. */
  async function runCells(cells: readonly string[]): Promise<unknown> {
    const context = vm.createContext({});
    Object.defineProperty(context, IMPORT_FN, { value: (spec: string) => import(spec) });
    let value: unknown;
    for (const [i, cell] of cells.entries()) {
      const compiled = compileCell(cell, `<cell-${i + 1}>`);
      const completion: unknown = compiled.script.runInContext(context);
      if (!compiled.async) value = completion;
      else {
        const r = (await completion) as { value?: unknown } | undefined;
        value = r && typeof r === 'object' && 'value' in r ? r.value : undefined;
      }
    }
    return value;
  }

  it.each([
    // [what, cells, JSON of the last cell's value]
    [
      'let and const, declared again later',
      ['let x = 1', 'const y = x + 1', 'let x = 10', 'JSON.stringify([x, y])'],
      '[10,2]',
    ],
    [
      'destructuring with defaults and renames',
      ['const {a, b: [c = 3], d: e = 4} = {a: 1, b: []}', 'JSON.stringify([a, c, e])'],
      '[1,3,4]',
    ],
    [
      'classes and functions',
      ['class A { get v() { return twice(21) } }', 'function twice(n) { return 2 * n }', 'new A().v'],
      42,
    ],
    ['a class declared again', ['class A { v() { return 1 } }', 'class A { v() { return 2 } }', 'new A().v()'], 2],
    ['top-level await in declarations', ['const r = await Promise.resolve(5)\nlet s = r * 2', 'r + s'], 15],
    [
      'functions and classes of an async cell',
      ['await 0\nfunction f() { return 7 }\nclass K { static k = 8 }', 'f() + K.k'],
      15,
    ],
    ['the last expression of an async cell', ['const base = 40', 'await null\nbase + 2'], 42],
    [
      'for await with a var',
      ['let total = 0\nfor await (var n of [1, 2, 3]) total += n', 'JSON.stringify([total, n])'],
      '[6,3]',
    ],
    ['var in a block of an async cell stays local', ['await 0\n{ var local = 1 }', 'typeof local'], 'undefined'],
    ['static imports', ["import path, {join as j} from 'node:path'", "j('a', path.basename('/x/b'))"], 'a/b'],
    ['namespace imports', ["import * as util from 'node:util'", "util.format('%s!', 'hi')"], 'hi!'],
    ['dynamic import', ["const m = await import('node:path')", "m.posix.join('c', 'd')"], 'c/d'],
  ] as const)('%s', async (_what, cells, expected) => {
    expect(await runCells(cells)).toBe(expected);
  });
});
