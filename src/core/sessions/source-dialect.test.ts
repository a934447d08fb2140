import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { agentSource } from './source-dialect';

describe('agentSource (a language whose agent runs another dialect)', () => {
  it('leaves JavaScript, Python and bash code exactly as written', () => {
    for (const language of ['javascript', 'python', 'bash'] as const) expect(agentSource(language, 'let x: number = 1')).toEqual({ code: 'let x: number = 1' });
  });

  it('removes TypeScript types in place: every line and column stays where it was', () => {
    const code = 'const a: number = 1;\ninterface P { x: number }\nfunction f(p: P): string {\n  return String(p.x + a) as string;\n}\nf({ x: 2 })';
    const out = agentSource('typescript', code);
    expect('code' in out).toBe(true);
    const js = (out as { code: string }).code;
    expect(js.split('\n')).toHaveLength(code.split('\n').length);
    expect(js.split('\n').map((line) => line.length)).toEqual(code.split('\n').map((line) => line.length));
    expect(js).not.toContain(': number');
    expect(js.split('\n')[3]!.indexOf('return')).toBe(code.split('\n')[3]!.indexOf('return'));
    // The result runs as JavaScript.
    expect(runInNewContext(js) as unknown).toBe('3');
  });

  it('transforms what only a compiler can (an enum) instead of refusing it', () => {
    const out = agentSource('typescript', 'enum Colour { Red, Green }\nColour.Green');
    expect('code' in out).toBe(true);
    // Its completion value, as the agent's REPL reads it.
    expect(runInNewContext((out as { code: string }).code) as unknown).toBe(1);
  });

  it('reports a TypeScript syntax error with its line, and nothing runs', () => {
    const out = agentSource('typescript', 'const a = 1;\nconst b = 2;\nlet x: = 3');
    expect('error' in out).toBe(true);
    const { error } = out as { error: { name: string; value: string; traceback: string } };
    expect(error.name).toBe('SyntaxError');
    expect(error.value).toMatch(/^Unexpected token `=`.*\(line 3\)$/);
    expect(error.traceback).toContain('line 3:');
    expect(error.traceback).toContain('let x: = 3');
  });
});
