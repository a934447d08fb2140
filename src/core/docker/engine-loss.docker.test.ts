import { afterAll, describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { findRestartableDockerd, startDockerd, stopDockerd } from '../../test-support/dockerd-control';
import type { DockerdProcess } from '../../test-support/dockerd-control';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { pollUntil } from '../util/with-timeout';
import { LABEL } from './labels';
import { newSession } from '../../test-support/sessions';

const dockerd = findRestartableDockerd();
const reason = typeof dockerd === 'string' ? dockerd : '';

// Restarting the engine needs a local dockerd we may signal; where there is none (Docker Desktop,
// a remote engine, no root) this says so and is skipped. CI (root, dockerd) runs it.
describe.skipIf(reason !== '')(`losing the Docker engine${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let sp: TestSandpit | undefined;
  afterAll(async () => {
    const d = dockerd as DockerdProcess;
    if (sp && !(await sp.docker.ping(2_000).then(() => true, () => false))) await startDockerd(d, sp.docker);
    await sp?.cleanup();
  });

  it('fails the in-flight run with DOCKER_UNAVAILABLE within seconds, reconnects, and starts the same container again', async () => {
    sp = await startTestSandpit();
    const session = await newSession(sp, {});
    await sp.sessions.session(session.id).execute('before = 1');
    const run = sp.sessions.session(session.id).execute("import time\nprint('running', flush=True)\ntime.sleep(120)");
    await pollUntil(() => (sp!.sessions.session(session.id).state === 'busy' ? true : undefined), 10_000, 'run started');

    const stoppedAt = Date.now();
    const failure = run.then(() => undefined, (e: unknown) => e);
    await stopDockerd(dockerd as DockerdProcess);
    const error = await failure;
    expect(isSandpitError(error, 'DOCKER_UNAVAILABLE'), `the run ended with ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`).toBe(true);
    // dockerd gives containers 10 s to stop on shutdown; the run fails right after.
    expect(Date.now() - stoppedAt).toBeLessThan(25_000);
    expect(sp.engine.current.state).toBe('down');
    expect(sp.engine.current.fix).toMatch(/Start Docker/);

    await startDockerd(dockerd as DockerdProcess, sp.docker);
    await pollUntil(() => (sp!.engine.current.state === 'up' ? true : undefined), 60_000, 'engine monitor reconnect', 100);
    await pollUntil(() => (sp!.sessions.session(session.id).state === 'ready' ? true : undefined), 60_000, 'session restarted', 100);

    // The same container started again: a fresh interpreter (the result says state is lost), usable at once.
    const after = await sp.sessions.session(session.id).execute("'before' in globals(), 2 + 2");
    expect(after.status).toBe('ok');
    expect(after.result).toBe('(False, 4)');
    const containers = await sp.docker.listContainers({ [LABEL.session]: session.id });
    expect(containers.map((c) => c.id)).toEqual([session.containerId]);
  });
});
