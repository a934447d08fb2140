import { describe, expect, it } from 'vitest';
import { npmError } from './npm';

describe('npmError', () => {
  it('keeps what npm says went wrong, without the log pointer and the install-from-a-tarball note', () => {
    const stderr = [
      'npm ERR! code E404',
      'npm ERR! 404 Not Found - GET http://npm-registry:8080/sandpit-nope - Not found',
      'npm ERR! 404 ',
      "npm ERR! 404  'sandpit-nope@*' is not in this registry.",
      'npm ERR! 404 ',
      'npm ERR! 404 Note that you can also install from a',
      'npm ERR! 404 tarball, folder, http url, or git url.',
      '',
      'npm ERR! A complete log of this run can be found in:',
      'npm ERR!     /tmp/.npm/_logs/2026-11-29T16_20_43_038Z-debug-0.log',
    ].join('\n');
    expect(npmError(stderr, '')).toBe(
      "code E404 404 Not Found - GET http://npm-registry:8080/sandpit-nope - Not found 404 'sandpit-nope@*' is not in this registry.",
    );
  });

  it('reads npm 10 "npm error" lines too, and falls back to the last lines', () => {
    expect(npmError('npm error code ETARGET\nnpm error notarget No matching version found for x@9.', '')).toBe(
      'code ETARGET notarget No matching version found for x@9.',
    );
    expect(npmError('something odd\nhappened', '')).toBe('something odd happened');
    expect(npmError('', '')).toBe('npm failed without a message');
  });
});
