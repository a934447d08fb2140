import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { pollUntil } from '../util/with-timeout';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { DockerodeClient } from '../docker/dockerode-client';
import { LABEL } from '../docker/labels';
import { canLoopMount } from '../docker/workspace-storage';
import { silentLogger } from '../log';
import { newSession } from '../../test-support/sessions';

// On both engines: Docker, and Podman through its Docker-compatible API (its events, labels, volumes and loop-device workspaces).
for (const { engine, label, skip } of testEngines()) {
  describe(`on ${label}`, () => {
    describe.skipIf(skip)('a container that dies mid-run', () => {
      let sp: TestSandpit;
      beforeAll(async () => {
        sp = await startTestSandpit(onEngine(engine));
      });
      afterAll(async () => sp?.cleanup());

      it('ends the run with CONTAINER_DIED (never success) and the session recovers', async () => {
        const info = await newSession(sp, {});
        await sp.sessions.session(info.id).execute("x = 1\nopen('/workspace/kept.txt', 'w').write('still here')");
        const running = sp.sessions
          .session(info.id)
          .execute("import time\nprint('started', flush=True)\ntime.sleep(60)");
        await pollUntil(
          () => (sp.sessions.session(info.id).info().state === 'busy' ? true : undefined),
          10_000,
          'run started',
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sp.docker.killContainer(info.containerId, 'SIGKILL');
        const error = await running.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isSandpitError(error, 'CONTAINER_DIED')).toBe(true);
        expect((error as Error).message).toMatch(/variables were lost; the files in \/workspace were kept/);
        const next = await sp.sessions.session(info.id).execute("'x' in globals(), open('/workspace/kept.txt').read()");
        expect(next.status).toBe('ok');
        expect(next.result).toBe("(False, 'still here')");
      });

      it('restarts a container killed while idle', async () => {
        const info = await newSession(sp, {});
        await sp.docker.killContainer(info.containerId, 'SIGKILL');
        await pollUntil(
          async () =>
            (await sp.docker.inspectContainer(info.containerId)).running &&
            sp.sessions.session(info.id).runtime.connected
              ? true
              : undefined,
          20_000,
          'restart',
        );
        expect((await sp.sessions.session(info.id).execute('3')).result).toBe('3');
      });
    });

    /** Loop devices whose backing file is `file` (sysfs). */
    async function loopsBackedBy(file: string): Promise<string[]> {
      const found: string[] = [];
      for (const name of (await readdir('/sys/block')).filter((n) => n.startsWith('loop'))) {
        const backing = await readFile(`/sys/block/${name}/loop/backing_file`, 'utf8').catch(() => '');
        if (backing.trim() === file) found.push(name);
      }
      return found;
    }

    describe.skipIf(skip)('the reaper after a crash', () => {
      it('removes what a killed core left behind and leaves unlabelled containers alone', async () => {
        const { dockerHost, images } = { images: inject('images'), ...onEngine(engine) };
        const docker = new DockerodeClient({ host: dockerHost, logger: silentLogger });
        const home = await mkdtemp(join(tmpdir(), 'sandpit-crash-'));
        // A container that is not ours, from the same image: the reaper must not touch it.
        const foreign = await docker.createContainer({
          image: images.python!,
          cmd: ['sleep', '30'],
          env: {},
          labels: { 'com.example.other': 'yes' },
          user: '10001:10001',
          workingDir: '/',
          openStdin: false,
          hostConfig: { NetworkMode: 'none' },
        });
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', join(import.meta.dirname, '../../test-support/crash-child.mts')],
          {
            env: {
              ...process.env,
              SANDPIT_HOME: home,
              SANDPIT_TEST_IMAGE: images.python!,
              ...(dockerHost ? { DOCKER_HOST: dockerHost } : {}),
            },
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        const line = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('child did not report')), 60_000);
          child.stdout.on('data', (d: Buffer) => {
            const text = d.toString();
            if (text.includes('\n')) {
              clearTimeout(timer);
              resolve(text.trim());
            }
          });
        });
        const { containerId, volume, sessionId, instanceId } = JSON.parse(line) as {
          containerId: string;
          volume: string;
          sessionId: string;
          instanceId: string;
        };
        // Where the engine allows it, the workspace is an ext4 image on a loop device: it must not leak either.
        const image = join(home, 'workspaces', instanceId, `${sessionId}.img`);
        const hadImage = existsSync(image);
        expect(hadImage, 'this machine gives capped disk workspaces, so the crashed core made an image').toBe(
          await canLoopMount(true),
        );
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
        expect((await docker.inspectContainer(containerId)).running).toBe(true);

        const next = await startTestSandpit(onEngine(engine));
        try {
          await expect(docker.inspectContainer(containerId)).rejects.toSatisfy((e: unknown) =>
            isSandpitError(e, 'NOT_FOUND'),
          );
          expect((await docker.listVolumes({ [LABEL.managed]: 'true' })).map((v) => v.name)).not.toContain(volume);
          expect((await docker.inspectContainer(foreign)).labels['com.example.other']).toBe('yes');
          if (hadImage) {
            // Reaped by a core with another data folder: the loop device is found by its backing file.
            expect(existsSync(image)).toBe(false);
            expect(await loopsBackedBy(image)).toEqual([]);
          }
        } finally {
          await next.cleanup();
          await docker.removeContainer(foreign);
          await rm(home, { recursive: true, force: true });
        }
      });
    });
  });
}
