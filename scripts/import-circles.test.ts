import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CORE_LAYERS } from './import-layers.mjs';

const root = resolve(import.meta.dirname, '..');
const SOURCE = /\.(ts|tsx|mts)$/;
const TEST = /\.test\.(ts|tsx)$/;

/** Every source file under `dir` that is not a test (test-support included: its circles tangle tests too). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !TEST.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names, as TypeScript resolves it (./x → x.ts, x.tsx, x/index.ts). */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}.mts`, join(base, 'index.ts'), base.replace(/\.m?js$/, '.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** Who imports whom, type-only imports and re-exports included (a circle of types is a circle to a reader too). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles.map((i) => resolveSpecifier(file, i.fileName)).filter((path): path is string => path !== undefined && known.has(path));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** The strongly connected components with more than one member, or a member that imports itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import circles', () => {
  it('finds a circle when there is one (the check can fail)', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    expect(circles(graph)).toHaveLength(1);
    expect(circles(graph)[0]).toHaveLength(3);
  });

  it('has no circle of files in src/ and executor-image/ (tests aside)', () => {
    const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'executor-image'))];
    expect(files.length).toBeGreaterThan(500);
    expect(circles(importGraph(files)).map((circle) => circle.map((path) => relative(root, path)))).toEqual([]);
  });

  it('has no circle of rooms in the layer table (so lint lets none in)', () => {
    const graph = new Map(Object.entries(CORE_LAYERS).map(([room, allowed]) => [room, allowed.filter((name) => name in CORE_LAYERS)]));
    // boot stands for every boot*.ts: the table lists boot-images and boot-checks under it.
    expect(circles(graph)).toEqual([]);
  });

  it('names every room of src/core in the layer table (a new room says what it may import)', () => {
    const rooms = readdirSync(join(root, 'src/core'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || (SOURCE.test(entry.name) && !TEST.test(entry.name)))
      .map((entry) => (entry.isDirectory() ? entry.name : entry.name.replace(SOURCE, '')))
      .map((name) => (name.startsWith('boot') ? 'boot' : name));
    expect([...new Set(rooms)].filter((room) => !(room in CORE_LAYERS))).toEqual([]);
  });
});
