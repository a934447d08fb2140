import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { EXT_APPS_GLOBAL, extAppsScript, inlineExtApps } from './ext-apps-bundle';

describe('the MCP Apps package inlined into the console', () => {
  it('turns the package build\'s final export into one constant of the classes and helpers the console uses', async () => {
    const script = await extAppsScript();
    expect(script).not.toMatch(/\bexport\s*\{/);
    expect(script.startsWith(`const ${EXT_APPS_GLOBAL} = (() => {`)).toBe(true);
    expect(script).toMatch(/return \{ App: [\w$]+, PostMessageTransport: [\w$]+, applyDocumentTheme: [\w$]+, applyHostStyleVariables: [\w$]+, applyHostFonts: [\w$]+ \};\n\}\)\(\);\n$/);
    // A classic parse of the whole: no import or export is left, and it is well-formed.
    expect(() => new Script(script)).not.toThrow();
    const original = await readFile(createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
    expect(script).toContain(original.slice(0, 2_000));
  });

  it('refuses a build it cannot inline, saying why', () => {
    expect(() => inlineExtApps('var a = 1;')).toThrow('no final export clause');
    expect(() => inlineExtApps('class A {}\nexport { A as App };')).toThrow('does not export PostMessageTransport, applyDocumentTheme, applyHostStyleVariables, applyHostFonts');
    const all = 'export{a as App,b as PostMessageTransport,c as applyDocumentTheme,d as applyHostStyleVariables,e as applyHostFonts};';
    expect(inlineExtApps(`var a,b,c,d,e;${all}`)).toBe('const ExtApps = (() => {\nvar a,b,c,d,e;\nreturn { App: a, PostMessageTransport: b, applyDocumentTheme: c, applyHostStyleVariables: d, applyHostFonts: e };\n})();\n');
    expect(() => inlineExtApps(`var a,b,c,d,e;var s="</script>";${all}`)).toThrow('cannot stand inside a <script>');
    expect(() => inlineExtApps(`import x from "y";var a,b,c,d,e;${all}`)).toThrow('has imports or more exports');
  });
});
