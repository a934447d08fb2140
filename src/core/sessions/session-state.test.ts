import { describe, expect, it } from 'vitest';
import { SESSION_STATES } from '../../shared/domain/session';
import type { SessionState } from '../../shared/domain/session';
import { SESSION_TRANSITIONS, assertTransition, canTransition } from './session-state';

describe('the session state machine', () => {
  it('names every state, and every state but the first is reached from another (no state that nothing sets)', () => {
    expect(Object.keys(SESSION_TRANSITIONS).sort()).toEqual([...SESSION_STATES].sort());
    const reached = new Set(Object.values(SESSION_TRANSITIONS).flat());
    for (const state of SESSION_STATES.filter((s) => s !== 'starting')) expect(reached.has(state), state).toBe(true);
  });

  it.each<[SessionState, SessionState, boolean]>([
    ['starting', 'ready', true],
    ['ready', 'busy', true],
    ['busy', 'ready', true],
    ['busy', 'failed', true],
    ['failed', 'restarting', true],
    ['restarting', 'ready', true],
    ['ready', 'stopping', true],
    ['stopping', 'stopped', true],
    ['failed', 'busy', false],
    ['stopped', 'ready', false],
    ['stopping', 'ready', false],
    ['starting', 'busy', false],
    ['ready', 'stopped', false],
    // Paused: the container stopped, files and packages kept; resumed through restarting, stopped for good from here too.
    ['ready', 'paused', true],
    ['failed', 'paused', true],
    ['paused', 'restarting', true],
    ['paused', 'stopping', true],
    ['busy', 'paused', false],
    ['starting', 'paused', false],
    ['restarting', 'paused', false],
    ['paused', 'ready', false],
    ['paused', 'busy', false],
    ['paused', 'failed', false],
  ])('%s → %s allowed: %s', (from, to, allowed) => {
    expect(canTransition(from, to)).toBe(allowed);
    if (allowed) expect(() => assertTransition('ses-1', from, to)).not.toThrow();
    else expect(() => assertTransition('ses-1', from, to)).toThrow(/cannot go from/);
  });

  it('resumes a paused session only through restarting, so a resume is checked like a restart', () => {
    expect(SESSION_TRANSITIONS.paused).toEqual(['restarting', 'stopping']);
    const into = SESSION_STATES.filter((s) => SESSION_TRANSITIONS[s].includes('paused'));
    expect(into.sort()).toEqual(['failed', 'ready']);
  });

  it('ends in stopped, from which nothing leads', () => {
    expect(SESSION_TRANSITIONS.stopped).toEqual([]);
    for (const state of SESSION_STATES.filter((s) => s !== 'stopped' && s !== 'stopping')) expect(canTransition(state, 'stopping'), state).toBe(true);
  });
});
