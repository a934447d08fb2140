import { describe, expect, it } from 'vitest';
import { doneWords, secretsWords, stateWords } from './session-words';

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

  it('says which secrets a session can use, where they go and what the sandbox holds instead', () => {
    expect(secretsWords([{ name: 'openai', hosts: ['api.openai.com'], envVar: 'OPENAI_API_KEY' }])).toBe('Its requests to api.openai.com carry the secret openai (inside, OPENAI_API_KEY holds only a stand-in).');
    expect(secretsWords([{ name: 'gh', hosts: ['api.github.com', 'uploads.github.com:8443'], envVar: 'GH_API_KEY' }, { name: 'x', hosts: ['x.example'], envVar: 'X_API_KEY' }])).toBe(
      'Its requests to api.github.com, uploads.github.com:8443 carry the secret gh (inside, GH_API_KEY holds only a stand-in). Its requests to x.example carry the secret x (inside, X_API_KEY holds only a stand-in).',
    );
  });

  it('says which of them the person ticked for this session rather than its environment', () => {
    expect(secretsWords([{ name: 'openai', hosts: ['api.openai.com'], envVar: 'OPENAI_API_KEY' }, { name: 'weather', hosts: ['10.0.0.9'], envVar: 'WEATHER_API_KEY', forSession: true }])).toBe(
      'Its requests to api.openai.com carry the secret openai (inside, OPENAI_API_KEY holds only a stand-in). Its requests to 10.0.0.9 carry the secret weather, ticked for this session (inside, WEATHER_API_KEY holds only a stand-in).',
    );
  });
});
