import { describe, expect, it } from 'vitest';
import { doneWords, stateWords } from './session-words';

describe('session words', () => {
  it('says how a run ended, with a duration only when it means something', () => {
    expect(doneWords('error', 0)).toBe('Failed');
    expect(doneWords('ok', 40)).toBe('Finished');
    expect(doneWords('ok', 4_200)).toBe('Finished in 4.2 s');
    expect(doneWords('error', 3_000)).toBe('Failed after 3.0 s');
    expect(doneWords('timeout', 60_000)).toBe('Took too long (stopped after 1 min)');
    expect(doneWords('interrupted', 10)).toBe('Interrupted');
  });

  it('says who stopped the session a run was cut short with', () => {
    expect(doneWords('killed', 5_400, { by: 'person' })).toBe('Stopped by you after 5.4 s');
    expect(doneWords('killed', 5_400, { by: 'assistant', name: 'cursor-vscode' })).toBe('Stopped by cursor-vscode after 5.4 s');
    expect(doneWords('killed', 200, { by: 'sandpit', why: 'Sandpit was quitting' })).toBe('Stopped by Sandpit after 200 ms (Sandpit was quitting)');
  });

  it('does not claim a state while Sandpit cannot be reached', () => {
    expect(stateWords('ready', false)).toBe('Ready');
    expect(stateWords('ready', true)).toBe('Unknown');
  });
});
