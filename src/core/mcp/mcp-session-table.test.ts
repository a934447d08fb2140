import { describe, expect, it } from 'vitest';
import { McpSessionTable } from './mcp-session-table';

const LIMITS = { maxSessionsPerPrincipal: 3, idleTimeoutMs: 1_000, unusedTimeoutMs: 100 };

function table(): {
  t: McpSessionTable<string>;
  clock: { now: number };
  open: (id: string, principal?: string) => void;
} {
  const clock = { now: 0 };
  const t = new McpSessionTable<string>(LIMITS, () => clock.now);
  const open = (id: string, principal = 'tok'): void => {
    const admission = t.admit(principal);
    if (!admission.ok) throw new Error(`refused ${id}`);
    t.add(id, principal, id);
    admission.release();
  };
  return { t, clock, open };
}

describe('McpSessionTable', () => {
  it('evicts the never-used sessions first, then the least recently active, and never one with a request in flight', () => {
    const { t, clock, open } = table();
    open('a');
    clock.now = 10;
    open('b');
    clock.now = 20;
    open('c');
    t.begin('a', true)();
    const endB = t.begin('b', true);
    // c was never used: it goes first, although a and b are older.
    let admission = t.admit('tok');
    expect(admission).toMatchObject({ ok: true, evicted: ['c'] });
    if (admission.ok) admission.release();
    clock.now = 30;
    open('d');
    t.begin('d', true)();
    // a is the least recently active of the used ones; b is busy.
    admission = t.admit('tok');
    expect(admission).toMatchObject({ ok: true, evicted: ['a'] });
    if (admission.ok) admission.release();
    expect(t.values().sort()).toEqual(['b', 'd']);
    endB();
  });

  it('refuses when every session of the principal is busy, counting initializes still being answered', () => {
    const { t, open } = table();
    open('a');
    open('b');
    t.begin('a', true);
    t.begin('b', true);
    const third = t.admit('tok');
    expect(third.ok).toBe(true);
    expect(t.admit('tok')).toEqual({ ok: false, sessions: 3, busy: 2 });
    if (third.ok) third.release();
    expect(t.admit('tok').ok).toBe(true);
    // Another principal has its own cap.
    for (const id of ['x', 'y', 'z']) open(id, 'other');
    expect(t.countFor('other')).toBe(3);
  });

  it('expires unused sessions after the short timeout and used ones after the idle timeout, never while busy', () => {
    const { t, clock, open } = table();
    open('unused');
    open('used');
    open('busy');
    t.begin('used', true)();
    t.begin('busy', true);
    t.begin('busy', false)();
    clock.now = 99;
    expect(t.takeExpired()).toEqual([]);
    clock.now = 100;
    expect(t.takeExpired()).toEqual(['unused']);
    clock.now = 5_000;
    expect(t.takeExpired()).toEqual(['used']);
    expect(t.values()).toEqual(['busy']);
  });

  it('does not count the initialized notification as a use', () => {
    const { t, clock, open } = table();
    open('a');
    t.begin('a', false)();
    clock.now = 100;
    expect(t.takeExpired()).toEqual(['a']);
    expect(t.begin('gone', true)).toBeTypeOf('function');
  });
});
