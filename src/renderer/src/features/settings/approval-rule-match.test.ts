import { describe, expect, it } from 'vitest';
import { likelyMeant, unmatchedWarning } from './approval-rule-match';

describe('approval rule matching, in words', () => {
  it('flags a typed name no assistant connected with, naming the one it was probably meant for', () => {
    expect(unmatchedWarning('cursor', ['claude-ai', 'cursor-vscode'])).toBe(
      'No assistant has connected as “cursor” since Sandpit started, so this rule applies to none of them. Did you mean “cursor-vscode”?',
    );
    expect(likelyMeant('Cursor', ['cursor-vscode', 'claude-ai'])).toEqual(['cursor-vscode']);
  });

  it('says nothing for a name an assistant connected with exactly, and flags one that differs only in capitals', () => {
    expect(unmatchedWarning('cursor-vscode', ['cursor-vscode'])).toBeUndefined();
    expect(unmatchedWarning('Cursor-VSCode', ['cursor-vscode'])).toContain('Did you mean “cursor-vscode”?');
  });

  it('lists the connected names when none is close, and says to connect first when none has', () => {
    expect(unmatchedWarning('zed', ['claude-ai'])).toContain('are called “claude-ai”');
    expect(unmatchedWarning('zed', [])).toContain('Connect the assistant first');
  });
});
