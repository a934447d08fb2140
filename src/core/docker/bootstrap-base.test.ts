import { describe, expect, it } from 'vitest';
import { fakeImageDocker } from '../../test-support/fake-image-docker';
import { bootstrapBaseImage, mmdebstrapArgs } from './bootstrap-base';

const bootstrap = { tag: 'sandpit-base/test:bookworm', suite: 'bookworm', packages: ['python3', 'python3-venv'] };

/** Runs a stand-in for mmdebstrap: this Node binary with an inline script. */
function standIn(script: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['-e', script] };
}

describe('mmdebstrapArgs', () => {
  it('asks for a minimal apt system without recommends, as a tar on stdout', () => {
    expect(mmdebstrapArgs(bootstrap, '')).toEqual([
      '--variant=apt',
      '--aptopt=APT::Install-Recommends "false"',
      '--include=python3,python3-venv',
      'bookworm',
      '-',
    ]);
  });

  it('appends a mirror when one is configured', () => {
    expect(mmdebstrapArgs(bootstrap, 'http://mirror.example/debian').at(-1)).toBe('http://mirror.example/debian');
  });
});

describe('bootstrapBaseImage', () => {
  it('streams stdout into the import and stderr lines to onLog', async () => {
    const fake = fakeImageDocker();
    const lines: string[] = [];
    await bootstrapBaseImage(fake.docker, bootstrap, {
      ...standIn('process.stderr.write("I: resolving\\nI: extracting\\n"); process.stdout.write("ROOTFS-TAR")'),
      onLog: (line) => lines.push(line),
    });
    expect(fake.imports).toEqual([{ tag: bootstrap.tag, bytes: Buffer.from('ROOTFS-TAR') }]);
    expect(lines).toContain('I: resolving');
    expect(lines).toContain('I: extracting');
    expect(fake.images.has(bootstrap.tag)).toBe(true);
  });

  it('aborts the import and removes the tag when mmdebstrap fails, with its last stderr lines', async () => {
    const fake = fakeImageDocker();
    await expect(
      bootstrapBaseImage(
        fake.docker,
        bootstrap,
        standIn('process.stdout.write("PARTIAL"); process.stderr.write("E: cannot find package\\n"); process.exit(3)'),
      ),
    ).rejects.toThrow(/exited with 3 while bootstrapping sandpit-base\/test:bookworm:\nE: cannot find package/);
    expect(fake.images.has(bootstrap.tag)).toBe(false);
    expect(fake.imports).toEqual([]);
    expect(fake.removed).toEqual([bootstrap.tag]);
  });

  it('starts the import only with the first bytes of the tar, never holding an idle request through the chroot phase', async () => {
    const fake = fakeImageDocker();
    let importAt = 0;
    const docker = new Proxy(fake.docker, {
      get(target, key: string | symbol) {
        if (key === 'importImage') importAt = Date.now();
        return Reflect.get(target, key) as unknown;
      },
    });
    const started = Date.now();
    await bootstrapBaseImage(docker, bootstrap, standIn('process.stderr.write("I: installing\\n"); setTimeout(() => process.stdout.write("ROOTFS-TAR"), 700)'));
    expect(importAt - started).toBeGreaterThanOrEqual(600);
    expect(fake.imports).toEqual([{ tag: bootstrap.tag, bytes: Buffer.from('ROOTFS-TAR') }]);
  });

  it('says so when mmdebstrap ends without writing a root filesystem, and imports nothing', async () => {
    const fake = fakeImageDocker();
    await expect(bootstrapBaseImage(fake.docker, bootstrap, standIn('process.exit(0)'))).rejects.toThrow(/wrote no root filesystem while bootstrapping sandpit-base\/test:bookworm/);
    expect(fake.imports).toEqual([]);
    expect(fake.images.has(bootstrap.tag)).toBe(false);
  });

  it('says how to install mmdebstrap when it is missing', async () => {
    const fake = fakeImageDocker();
    await expect(bootstrapBaseImage(fake.docker, bootstrap, { command: 'sandpit-no-such-mmdebstrap' })).rejects.toThrow(
      /sandpit-no-such-mmdebstrap is not installed.*install it with apt-get install mmdebstrap/,
    );
  });

  it('kills a bootstrap that runs past its timeout', async () => {
    const fake = fakeImageDocker();
    await expect(
      bootstrapBaseImage(fake.docker, bootstrap, { ...standIn('setTimeout(() => {}, 60_000)'), timeoutMs: 300 }),
    ).rejects.toThrow(/did not finish within 0.3 s/);
    expect(fake.images.has(bootstrap.tag)).toBe(false);
  });
});
