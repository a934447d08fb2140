import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISOLATION_LEVELS } from '../../shared/domain/isolation';
import { onEngine, testEngines } from '../../test-support/engines';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

/**
 * The hardened profile, checked from inside the container and through the engine's own view — under
 * both isolation levels: the hardened container (runc) and gVisor (runsc), whose kernel is its own.
 */
for (const { engine, label, skip } of testEngines()) {
  describe(`on ${label}`, () => {
    // Podman offers Standard isolation only: its Strong case is the refusal below.
    const levels = ISOLATION_LEVELS.filter((level) => engine === 'docker' || level === 'standard');
    describe.skipIf(skip).each(levels)('hardened session container (%s isolation)', (isolation) => {
      let sp: TestSandpit;
      let id: string;
      const run = async (code: string): Promise<string | undefined> =>
        (await sp.sessions.session(id).execute(code)).result;

      beforeAll(async () => {
        sp = await startTestSandpit({ defaultIsolation: isolation, ...onEngine(engine) });
        id = (await newSession(sp, {})).id;
      });
      afterAll(async () => sp?.cleanup());

      it(
        isolation === 'strong' ? "runs on gVisor's kernel, not the host's" : "runs on the host's kernel, under runc",
        async () => {
          const state = await sp.docker.inspectContainer(sp.sessions.session(id).info().containerId);
          const kernel = await run('import platform\nplatform.release()');
          const host = (await import('node:os')).release();
          expect(sp.sessions.session(id).info().isolation).toBe(isolation);
          if (isolation === 'strong') {
            expect(kernel).toBe("'4.4.0'"); // what gVisor's Sentry reports
            expect(kernel).not.toBe(`'${host}'`);
            expect(state.runtime).toMatch(/^runsc/);
            expect(sp.sessions.session(id).info().channel).toBe('attach');
          } else {
            expect(kernel).toBe(`'${host}'`);
            // Podman's Docker-compatible inspect names only "oci" (its default OCI runtime: runc, per its /info).
            expect(state.runtime).toBe(engine === 'docker' ? 'runc' : 'oci');
          }
        },
      );

      it('runs as a non-root user with no capabilities and no_new_privs', async () => {
        expect(await run('import os\n(os.getuid(), os.getgid(), os.geteuid())')).toBe('(10001, 10001, 10001)');
        const status = await run("open('/proc/self/status').read()");
        expect(status).toMatch(/CapEff:\\t0000000000000000/);
        expect(status).toMatch(/CapBnd:\\t0000000000000000/);
        if (isolation === 'standard') {
          // gVisor's /proc has no such lines: its Sentry is the filter (it runs under seccomp itself).
          expect(status).toMatch(/NoNewPrivs:\\t1/);
          expect(status).toMatch(/Seccomp:\\t2/);
        }
      });

      it('has a read-only root filesystem: writing /etc or /usr fails', async () => {
        const r = await sp.sessions.session(id).execute("open('/etc/evil', 'w').write('x')");
        expect(r.status).toBe('error');
        expect(r.error?.value).toMatch(/Read-only file system|Permission denied/);
        const usr = await sp.sessions.session(id).execute("open('/usr/bin/evil', 'w')");
        expect(usr.status).toBe('error');
        // The agent's socket dir is on the host: once the agent listens, sandboxed code cannot write there.
        if (sp.sessions.session(id).info().channel === 'socket') {
          const agentDir = await sp.sessions.session(id).execute("open('/run/sandpit/fill.bin', 'wb').write(b'x')");
          expect(agentDir.status).toBe('error');
          expect(agentDir.error?.value).toMatch(/Permission denied/);
        }
        // The package dir lives on host disk outside every cap: only the installer may write it.
        const pkg = await sp.sessions.session(id).execute("open('/opt/sandpit/packages/fill.bin', 'wb').write(b'x')");
        expect(pkg.status).toBe('error');
        expect(pkg.error?.value).toMatch(/Read-only file system/);
        expect(await run("open('/workspace/ok.txt', 'w').write('fine')")).toBe('4');
        expect(await run("open('/tmp/ok.txt', 'w').write('fine')")).toBe('4');
      });

      it('has no network: only the loopback interface and no routes', async () => {
        expect(await run("import os\nsorted(os.listdir('/sys/class/net'))")).toBe("['lo']");
        expect(await run("open('/proc/net/route').read().strip().splitlines()[1:]")).toBe('[]');
        expect(
          await run("open('/proc/net/if_inet6').read() if __import__('os').path.exists('/proc/net/if_inet6') else ''"),
        ).not.toMatch(/eth/);
      });

      it('is created with every field of the hardened profile', async () => {
        const info = sp.sessions.session(id).info();
        const state = await sp.docker.inspectContainer(info.containerId);
        expect(state.labels['dev.sandpit.managed']).toBe('true');
        expect(state.labels['dev.sandpit.session']).toBe(id);
        expect(state.labels['dev.sandpit.instance']).toBe(sp.identity.instanceId);
        const limits = await run(
          [
            'import resource',
            '(resource.getrlimit(resource.RLIMIT_NOFILE), resource.getrlimit(resource.RLIMIT_CORE)[0], resource.getrlimit(resource.RLIMIT_FSIZE)[0] > 0)',
          ].join('\n'),
        );
        // The container's 1024 descriptors, of which the agent keeps 64 for its own work (user code's soft limit).
        expect(limits).toBe('((960, 1024), 0, True)');
        expect(await run("open('/proc/1/comm').read().strip()")).toMatch(/init|tini/);
      });

      it('keeps sessions apart: variables and files of A are invisible from B', async () => {
        const a = (await newSession(sp, {})).id;
        const b = (await newSession(sp, {})).id;
        await sp.sessions.session(a).execute("secret = 'A-only'\nopen('/workspace/a.txt', 'w').write('A')");
        const fromB = await sp.sessions
          .session(b)
          .execute("import os\n('secret' in globals(), os.path.exists('/workspace/a.txt'), os.listdir('/workspace'))");
        expect(fromB.result).toBe('(False, False, [])');
        await sp.sessions.stop(a);
        await sp.sessions.stop(b);
      });
    });

    // Only on Podman (Docker's Strong cases are above).
    if (engine === 'podman')
      describe.skipIf(skip)('Strong isolation on Podman', () => {
        let sp: TestSandpit;
        beforeAll(async () => {
          sp = await startTestSandpit({ defaultIsolation: 'strong', ...onEngine(engine) });
        });
        afterAll(async () => sp?.cleanup());

        it('is refused naming Podman, and no sandbox is left behind (never a runc sandbox instead)', async () => {
          await expect(newSession(sp, {})).rejects.toThrow(
            /Strong isolation \(gVisor\) is not offered on Podman \(this engine is Podman [\d.]+\).*Choose Standard isolation/,
          );
          expect(sp.engine.current.product).toBe('podman');
          expect(await sp.docker.listContainers({ 'dev.sandpit.instance': sp.identity.instanceId })).toEqual([]);
        });
      });
  });
}
