// The agent protocol is declared once (executor-image/agents/protocol.json; prose: PROTOCOL.md). The host's
// schemas (protocol.ts), the JavaScript agent's builders (protocol.js and the inline fs replies), the Python
// agent's builders (sandpit_agent/protocol.py) and the R agent's message literals (its Perl supervisor) are held
// to it: adding or dropping a message or a field in any of them without the declaration fails here.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { agentMessageSchema, FS_ERROR_CODES, hostMessageSchema, MAX_LINE_BYTES, PROTOCOL_VERSION } from './protocol';

const AGENTS = join(import.meta.dirname, '../../../executor-image/agents');
const PYTHON = process.env.SANDPIT_TEST_PYTHON ?? 'python3';

interface Declaration {
  version: number;
  requests: Record<string, string[]>;
  fsOps: string[];
  messages: Record<string, string[]>;
  statuses: string[];
  fsErrorCodes: string[];
  limits: Record<string, number>;
  /** What an agent may offer beyond the base protocol (named in its hello's `features`): the ops and messages that come with it. */
  features: Record<string, { fsOps: string[]; messages: string[] }>;
}
const declaration = JSON.parse(readFileSync(join(AGENTS, 'protocol.json'), 'utf8')) as Declaration;

/** `field` or `field?` for each field of one declared message, sorted. */
const declared = (fields: string[]): string[] => [...fields].sort();
const all = (fields: string[]): string[] => fields.map((f) => f.replace(/\?$/, '')).sort();
const required = (fields: string[]): string[] => fields.filter((f) => !f.endsWith('?')).sort();

/** The declared form (`name` / `name?`) of a zod object's fields but `type`. */
function zodFields(shape: Record<string, z.ZodType>): string[] {
  return Object.entries(shape)
    .filter(([name]) => name !== 'type')
    .map(([name, field]) => (field.safeParse(undefined).success ? `${name}?` : name))
    .sort();
}

describe('the agent protocol declaration', () => {
  it('is what the host validates from the agent (protocol.ts): every message and field, no other', () => {
    const host: Record<string, string[]> = {};
    for (const option of agentMessageSchema.options) {
      const shape = option.shape as unknown as Record<string, z.ZodType> & { type: z.ZodLiteral<string> };
      host[shape.type.value] = zodFields(shape);
    }
    expect(host).toEqual(Object.fromEntries(Object.entries(declaration.messages).map(([t, f]) => [t, declared(f)])));
    expect([...FS_ERROR_CODES].sort()).toEqual([...declaration.fsErrorCodes].sort());
    expect(PROTOCOL_VERSION).toBe(declaration.version);
    expect(MAX_LINE_BYTES).toBe(declaration.limits.maxLineBytes);
  });

  it('is what the host sends (protocol.ts): every request and field, no other', () => {
    const byType = new Map<string, string[][]>();
    const ops: string[] = [];
    for (const option of hostMessageSchema.options) {
      const shape = option.shape as unknown as Record<string, z.ZodType> & { type: z.ZodLiteral<string> };
      byType.set(shape.type.value, [...(byType.get(shape.type.value) ?? []), zodFields(shape)]);
      if ('op' in shape) ops.push((shape.op as z.ZodLiteral<string>).value);
    }
    // a field missing from one variant of a request (fs: by op) is optional
    const host = Object.fromEntries(
      [...byType].map(([type, variants]) => {
        const names = [...new Set(variants.flat())];
        return [type, names.map((n) => (variants.every((v) => v.includes(n)) ? n : `${n}?`)).sort()];
      }),
    );
    expect(host).toEqual(Object.fromEntries(Object.entries(declaration.requests).map(([t, f]) => [t, declared(f)])));
    expect(ops.sort()).toEqual([...declaration.fsOps].sort());
  });

  it('is what the JavaScript agent sends: protocol.js builders and the fs replies, every field declared', () => {
    const js = createRequire(import.meta.url)(join(AGENTS, 'javascript/protocol.js')) as Record<string, (...args: unknown[]) => Record<string, unknown>>;
    const built = [
      js.helloReply!('h'),
      js.streamMessage!('e', 'stdout', 't'),
      js.displayMessage!('e', 'text/html', 'd', 'utf8'),
      js.resultMessage!('e', 't'),
      js.errorMessage!('e', 'n', 'v', 't'),
      js.interruptedMessage!('e'),
      js.doneMessage!('e', { status: 'ok', durationMs: 1, files: [], filesTruncated: false, straysKilled: 0 }),
    ];
    const seen = new Map<string, Set<string>>();
    const see = (type: string, fields: string[]): void => {
      expect(declaration.messages, `the JavaScript agent sends ${type}`).toHaveProperty([type]);
      seen.set(type, new Set([...(seen.get(type) ?? []), ...fields]));
      for (const field of fields) expect(all(declaration.messages[type]!), `${type}.${field} (JavaScript)`).toContain(field);
      for (const field of required(declaration.messages[type]!)) expect(fields, `${type} without ${field} (JavaScript)`).toContain(field);
    };
    for (const msg of built) see(msg.type as string, Object.keys(msg).filter((k) => k !== 'type'));
    // The other modules' message literals ({ type: 'fs-…', id, … }): their top-level keys.
    for (const file of readdirSync(join(AGENTS, 'javascript')).filter((f) => f.endsWith('.js') && f !== 'protocol.js')) {
      const src = readFileSync(join(AGENTS, 'javascript', file), 'utf8');
      for (const m of src.matchAll(/\{\s*type: '([a-z-]+)',/g)) {
        let depth = 0;
        let end = m.index;
        for (; end < src.length; end++) {
          if ('{(['.includes(src[end]!)) depth++;
          else if ('})]'.includes(src[end]!) && --depth === 0) break;
        }
        const body = src.slice(m.index + 1, end);
        const keys: string[] = [];
        let level = 0;
        let token = '';
        for (const ch of `${body},`) {
          if ('{(['.includes(ch)) level++;
          if ('})]'.includes(ch)) level--;
          if (ch === ',' && level === 0) {
            const key = /^\s*([A-Za-z_]\w*)/.exec(token)?.[1];
            if (key) keys.push(key);
            token = '';
          } else token += ch;
        }
        see(m[1]!, keys.filter((k) => k !== 'type'));
      }
    }
    expect([...seen.keys()].sort()).toEqual(Object.keys(declaration.messages).sort());
    const limits = createRequire(import.meta.url)(join(AGENTS, 'javascript/limits.js')) as Record<string, number>;
    expect([limits.DEFAULT_LIMIT, limits.MIN_TEXT_LIMIT, limits.MAX_FILES, limits.MAX_WALK]).toEqual([
      declaration.limits.defaultOutputLimit,
      declaration.limits.minTextLimit,
      declaration.limits.maxFiles,
      declaration.limits.maxWalk,
    ]);
  });

  it('is what the R agent sends: every message literal of its Perl supervisor, with the declared fields', () => {
    const dir = join(AGENTS, 'r');
    const seen = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.pl'))) {
      const src = readFileSync(join(dir, file), 'utf8');
      for (const m of src.matchAll(/\{\s*type => '([a-z-]+)',/g)) {
        let depth = 0;
        let end = m.index;
        for (; end < src.length; end++) {
          if ('{(['.includes(src[end]!)) depth++;
          else if ('})]'.includes(src[end]!) && --depth === 0) break;
        }
        const keys: string[] = [];
        let level = 0;
        let token = '';
        for (const ch of `${src.slice(m.index + 1, end)},`) {
          if ('{(['.includes(ch)) level++;
          if ('})]'.includes(ch)) level--;
          if (ch === ',' && level === 0) {
            const key = /^\s*([A-Za-z_]\w*)\s*=>/.exec(token)?.[1];
            if (key && key !== 'type') keys.push(key);
            token = '';
          } else token += ch;
        }
        const type = m[1]!;
        seen.add(type);
        expect(declaration.messages, `the R agent sends ${type}`).toHaveProperty([type]);
        for (const field of keys) expect(all(declaration.messages[type]!), `${type}.${field} (R, ${file})`).toContain(field);
        for (const field of required(declaration.messages[type]!)) expect(keys, `${type} without ${field} (R, ${file})`).toContain(field);
      }
    }
    // R prints a visible value itself, as its console does: no `result` message. Its hello names no feature, so it
    // sends none of their messages (its host reads and writes the workspace through the engine's exec instead).
    const hello = readFileSync(join(dir, 'main.pl'), 'utf8');
    expect(hello).not.toMatch(/features\s*=>/);
    const featureMessages = Object.values(declaration.features).flatMap((f) => f.messages);
    expect([...seen].sort()).toEqual(Object.keys(declaration.messages).filter((t) => t !== 'result' && !featureMessages.includes(t)).sort());
  });

  it('is what the Python agent sends: every message built in sandpit_agent/protocol.py, with the declared fields', () => {
    const probe = `
import inspect, json, sys
sys.path.insert(0, ${JSON.stringify(join(AGENTS, 'python'))})
from sandpit_agent import protocol, limits, workspace_fs
out = {'version': protocol.PROTOCOL, 'built': [], 'limits': [limits.DEFAULT_LIMIT, limits.MIN_TEXT_LIMIT, limits.MAX_FILES,
       limits.MAX_WALK, workspace_fs.FS_CHUNK, workspace_fs.FS_MAX_PATH, workspace_fs.FS_DEFAULT_MAX_BYTES, workspace_fs.FS_MAX_LIST]}
for name, fn in inspect.getmembers(protocol, inspect.isfunction):
    params = [p for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty]
    out['built'].append(sorted(k for k in fn(*[0] * len(params)) if k != 'type') + ['=' + fn(*[0] * len(params))['type']])
out['built'].append(sorted(k for k in protocol.done_message(*[0] * 7, exit_code=0, oom_kills=1) if k != 'type') + ['=done'])
print(json.dumps(out))`;
    const r = spawnSync(PYTHON, ['-s', '-c', probe], { encoding: 'utf8', timeout: 10_000 });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { version: number; built: string[][]; limits: number[] };
    expect(out.version).toBe(declaration.version);
    const seen = new Set<string>();
    for (const entry of out.built) {
      const type = entry.pop()!.slice(1);
      seen.add(type);
      expect(declaration.messages, `the Python agent sends ${type}`).toHaveProperty([type]);
      for (const field of entry) expect(all(declaration.messages[type]!), `${type}.${field} (Python)`).toContain(field);
      for (const field of required(declaration.messages[type]!)) expect(entry, `${type} without ${field} (Python)`).toContain(field);
    }
    expect([...seen].sort()).toEqual(Object.keys(declaration.messages).sort());
    expect(out.limits).toEqual([
      declaration.limits.defaultOutputLimit,
      declaration.limits.minTextLimit,
      declaration.limits.maxFiles,
      declaration.limits.maxWalk,
      declaration.limits.fsChunkBytes,
      declaration.limits.fsMaxPathBytes,
      declaration.limits.fsDefaultMaxBytes,
      declaration.limits.fsMaxList,
    ]);
    // No other module of the package writes a message of its own.
    const dir = join(AGENTS, 'python/sandpit_agent');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.py') && f !== 'protocol.py')) {
      expect(readFileSync(join(dir, file), 'utf8'), file).not.toMatch(/\{'type': '/);
    }
  });
});
