// A refused call starts nothing: bad input is refused before any session (or container) is made, and
// the audit log says why in plain words. Attacked as a client would, through the API on the real engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL } from '../docker/labels';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { call } from './dispatcher';
import type { CallContext } from './api-types';

const CLIENT: CallContext = { transport: 'mcp-stdio', client: 'refused-test', principal: 'p-refused' };

describe('refused calls leave no trace but their audit row', () => {
  let sp: TestSandpit;
  const containers = async (): Promise<number> => (await sp.docker.listContainers({ [LABEL.instance]: sp.identity.instanceId })).length;

  beforeAll(async () => {
    sp = await startTestSandpit();
  });
  afterAll(async () => sp?.cleanup());

  it.each<[string, () => Promise<unknown>, RegExp]>([
    ['install_packages with a name that is not a package', () => call(sp.api, 'packages.install', { packages: ['numpy; rm -rf /'] }, CLIENT), /not a valid pip package/],
    ['check_packages with an option for a name', () => call(sp.api, 'packages.check', { packages: ['--index-url=http://x'] }, CLIENT), /options are not allowed/],
    ['run_file of a path out of /workspace', () => call(sp.api, 'sessions.runFile', { path: '../../etc/passwd.py' }, CLIENT), /"\.\." segment/],
    ['read_file of an absolute path', () => call(sp.api, 'files.read', { path: '/etc/shadow' }, CLIENT), /absolute/],
    ['write_file with a NUL in the path', () => call(sp.api, 'files.write', { path: 'a\u0000b', content: 'x' }, CLIENT), /NUL/],
    ['list_files of a path with ".."', () => call(sp.api, 'files.list', { path: 'a/../..' }, CLIENT), /"\.\." segment/],
    ['create_session from an environment that does not exist', () => call(sp.api, 'sessions.create', { environment: 'no-such-env' }, CLIENT), /There is no environment/],
    ['create_session with a bad dependency', () => call(sp.api, 'sessions.create', { dependencies: ['ok-name', '-e git+https://x'] }, CLIENT), /options are not allowed/],
    ['create_session in a language its environment does not have', () => call(sp.api, 'sessions.create', { environment: 'node', language: 'bash' }, CLIENT), /is for JavaScript, not Bash/],
  ])('%s: refused with the reason, no container started', async (_what, attempt, reason) => {
    const before = await containers();
    const error = await attempt().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(reason);
    expect(await containers()).toBe(before);
    expect((await call(sp.api, 'sessions.list', {}, CLIENT)).sessions).toEqual([]);
  });

  it('records a refused install and a refused run_file in the audit log, with the reason in plain words', async () => {
    const { rows } = await call(sp.api, 'audit.list', { filters: { client: 'refused-test' }, limit: 50 }, { transport: 'ipc', client: 'panel' });
    const install = rows.find((r) => r.method === 'packages.install');
    const runFile = rows.find((r) => r.method === 'sessions.runFile');
    expect(install).toMatchObject({ status: 'failed' });
    expect(runFile).toMatchObject({ status: 'failed' });
    const installRow = await call(sp.api, 'audit.get', { id: install!.id }, { transport: 'ipc', client: 'panel' });
    expect(installRow).toMatchObject({ errorCode: 'INVALID_INPUT', errorMessage: expect.stringMatching(/"numpy; rm -rf \/" is not a valid pip package/) as unknown });
    expect(installRow.sessionId).toBeUndefined();
    const runFileRow = await call(sp.api, 'audit.get', { id: runFile!.id }, { transport: 'ipc', client: 'panel' });
    expect(runFileRow.errorMessage).toMatch(/is not allowed: it contains a "\.\." segment/);
  });
});
