import { describe, expect, it, vi } from 'vitest';
import type { HandlerKit } from './handler-kit';
import { packageHandlers } from './package-handlers';

/** A kit whose sessions must never be made or reached in these tests. */
function kit(): { kit: HandlerKit; target: ReturnType<typeof vi.fn> } {
  const target = vi.fn(() => Promise.reject(new Error('a session was made or reached')));
  const sessions = {
    access: (id: string) => ({ identity: { language: id === 'ses-js' ? 'javascript' : 'python' } }),
  };
  return { kit: { sessions, target } as unknown as HandlerKit, target };
}

describe('packages.install and packages.check: names are checked before anything starts', () => {
  it('refuses a bad pip name without making the default session', async () => {
    const { kit: k, target } = kit();
    await expect(packageHandlers(k)['packages.install']({ packages: ['numpy; rm -rf /'] }, { transport: 'internal', principal: 'p' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(target).not.toHaveBeenCalled();
  });

  it('checks names with the installer of the session named (npm in a JavaScript session)', async () => {
    const { kit: k, target } = kit();
    await expect(packageHandlers(k)['packages.check']({ sessionId: 'ses-js', packages: ['numpy==2'] }, { transport: 'internal', principal: 'p' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('npm') as unknown,
    });
    expect(target).not.toHaveBeenCalled();
  });
});
