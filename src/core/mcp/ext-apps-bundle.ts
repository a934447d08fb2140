import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** What the console takes from the official MCP Apps package (`@modelcontextprotocol/ext-apps`). */
export const EXT_APPS_NAMES = ['App', 'PostMessageTransport', 'applyDocumentTheme', 'applyHostStyleVariables', 'applyHostFonts'] as const;

/** The name the inlined package is known by in the console's script. */
export const EXT_APPS_GLOBAL = 'ExtApps';

/** One `export { … }` clause at the end of a bundle: `local as Exported` pairs (or a bare `name`). */
const EXPORT_CLAUSE = /export\s*\{([^{}]*)\}\s*;?\s*$/;

/**
 * The package's app side as a script a page can inline: its self-contained build (`app-with-deps`: the App class, its
 * transport, the SDK parts and zod it needs; no import of anything) with the final `export { … }` turned into one
 * constant, `const ExtApps = { App: …, … }`, of the names the console uses. Throws, naming what is missing, when the
 * build is not shaped so (a package update would be caught by the unit test, never in someone's chat). The build runs
 * inside a function of its own, so its top-level names stay its own.
 */
export function inlineExtApps(bundle: string): string {
  const clause = EXPORT_CLAUSE.exec(bundle);
  if (!clause) throw new Error('The MCP Apps package build has no final export clause to inline.');
  const locals = new Map<string, string>();
  for (const part of clause[1]!.split(',')) {
    const [local, exported = local] = part.trim().split(/\s+as\s+/);
    if (local && exported) locals.set(exported, local);
  }
  const missing = EXT_APPS_NAMES.filter((name) => !locals.has(name));
  if (missing.length > 0) throw new Error(`The MCP Apps package build does not export ${missing.join(', ')}.`);
  const body = bundle.slice(0, clause.index);
  if (/\bexport\s*[{*]|^\s*import[\s{*"']/m.test(body)) throw new Error('The MCP Apps package build has imports or more exports: it cannot be inlined.');
  // Inside a <script>, "</script" or "<!--" would end or bend the script early.
  if (/<\/script|<!--/i.test(body)) throw new Error('The MCP Apps package build holds text that cannot stand inside a <script>.');
  const members = EXT_APPS_NAMES.map((name) => `${name}: ${locals.get(name)!}`).join(', ');
  // In a function of its own: its top-level names never meet the console's.
  return `const ${EXT_APPS_GLOBAL} = (() => {\n${body}\nreturn { ${members} };\n})();\n`;
}

let cached: Promise<string> | undefined;

/** The inlined app side of `@modelcontextprotocol/ext-apps`, read from node_modules once. */
export function extAppsScript(): Promise<string> {
  cached ??= (async () => {
    const path = createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps');
    return inlineExtApps(await readFile(path, 'utf8'));
  })();
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
