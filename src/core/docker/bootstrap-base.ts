import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { SandpitError } from '../../shared/api/errors';
import { withTimeout } from '../util/with-timeout';
import type { DockerClient } from './docker-client';
import type { FlavourDefinition } from './image-bases';

export const BOOTSTRAP_TIMEOUT_MS = 15 * 60_000;
const KEPT_STDERR_LINES = 20;

export interface BootstrapOptions {
  onLog?: (line: string) => void;
  timeoutMs?: number;
  /** The program to run (tests); default `mmdebstrap`. */
  command?: string;
  /** Replaces mmdebstrap's argv (tests); default from `mmdebstrapArgs`. */
  args?: string[];
}

/** mmdebstrap's argv for a flavour's bootstrap base: a minimal apt system, no recommends, tar on stdout. */
export function mmdebstrapArgs(
  bootstrap: FlavourDefinition['bootstrap'],
  mirror = process.env.SANDPIT_DEBIAN_MIRROR,
): string[] {
  const args = [
    '--variant=apt',
    '--aptopt=APT::Install-Recommends "false"',
    `--include=${bootstrap.packages.join(',')}`,
    bootstrap.suite,
    '-',
  ];
  if (mirror) args.push(mirror);
  return args;
}

/**
 * Builds a root filesystem from Debian packages with mmdebstrap and imports it as `bootstrap.tag`.
 * The tar is streamed straight into the engine; it is only finished once mmdebstrap exited 0, so a
 * failed bootstrap aborts the import instead of leaving a half-made image behind the tag.
 */
export async function bootstrapBaseImage(
  docker: DockerClient,
  bootstrap: FlavourDefinition['bootstrap'],
  options: BootstrapOptions = {},
): Promise<void> {
  const command = options.command ?? 'mmdebstrap';
  const args = options.args ?? mmdebstrapArgs(bootstrap);
  const timeoutMs = options.timeoutMs ?? BOOTSTRAP_TIMEOUT_MS;
  const onLog = options.onLog ?? ((): void => undefined);
  const started = Date.now();
  onLog(`bootstrapping ${bootstrap.tag}: ${command} ${args.join(' ')}`);

  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lastLines: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    lastLines.push(line);
    if (lastLines.length > KEPT_STDERR_LINES) lastLines.shift();
    onLog(line);
  });

  const body = new PassThrough();
  // A failure reaches the caller through `exited` (and the import, when it started): not as the stream's own event.
  body.on('error', () => undefined);
  child.stdout.pipe(body, { end: false });

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  timer.unref();

  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new SandpitError(
              'IMAGE_MISSING',
              `${command} is not installed; it is needed to bootstrap ${bootstrap.tag} without a registry: install it with apt-get install mmdebstrap`,
            )
          : new SandpitError('INTERNAL', `Could not run ${command}: ${error.message}`),
      );
    });
    child.once('close', (code, signal) => {
      if (code === 0) return resolve();
      const why = timedOut ? `did not finish within ${timeoutMs / 1000} s` : `exited with ${code ?? signal}`;
      reject(
        new SandpitError(
          'INTERNAL',
          `${command} ${why} while bootstrapping ${bootstrap.tag}${lastLines.length ? `:\n${lastLines.join('\n')}` : ''}`,
        ),
      );
    });
  });
  exited.then(
    () => body.end(),
    (error: Error) => body.destroy(error),
  );

  // The import starts with the tar's first bytes: mmdebstrap writes nothing until its chroot is finished (many
  // minutes for R's base), and an import request that stayed idle that long was hung up on ("socket hang up").
  const imported = new Promise<void>((resolve, reject) => {
    let started = false;
    child.stdout.once('data', () => {
      started = true;
      docker.importImage(body, bootstrap.tag).then(resolve, reject);
    });
    exited.then(
      () => {
        if (!started) reject(new SandpitError('INTERNAL', `${command} wrote no root filesystem while bootstrapping ${bootstrap.tag}`));
      },
      (error: Error) => {
        if (!started) reject(error);
      },
    );
  });
  const [run, load] = await withTimeout(
    Promise.allSettled([exited, imported]),
    timeoutMs + 60_000,
    `Bootstrapping ${bootstrap.tag}`,
  );
  clearTimeout(timer);
  if (run.status === 'rejected' || load.status === 'rejected') {
    // An import that saw a truncated stream may still have tagged something: never leave that behind.
    await docker.removeImage(bootstrap.tag).catch(() => undefined);
    throw run.status === 'rejected' ? run.reason : (load as PromiseRejectedResult).reason;
  }
  onLog(`bootstrapped ${bootstrap.tag} in ${Math.round((Date.now() - started) / 1000)} s`);
}
