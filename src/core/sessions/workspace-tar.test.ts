import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { pack } from 'tar-stream';
import { describe, expect, it, vi } from 'vitest';
import type { StreamFile } from '../files/stream-tar';
import { AsyncQueue } from '../util/async-queue';
import { readStreamInto } from '../sandbox/chunk-reader';
import type { SandboxExecOptions, SandboxExecResult } from '../sandbox/sandbox-backend';
import { tarWorkspace, untarWorkspace } from './workspace-tar';
import type { WorkspaceExec, WorkspaceFileSink } from './workspace-tar';

const CAPS = { maxFiles: 1000, maxBytes: 1024 * 1024 * 1024, maxFileBytes: 64 * 1024 * 1024 };

/** A sandbox whose find lists `files` and whose tar sends them as one archive, in that order. */
/** How the fake tar ends: its exit code and stderr, and whether its archive is cut short (as a killed tar leaves it). */
interface FakeTarEnd {
  exitCode: number;
  stderr: string;
  cutShort?: boolean;
}

function fakeWorkspace(files: Array<{ name: string; content: Buffer }>, end: FakeTarEnd = { exitCode: 0, stderr: '' }): WorkspaceExec {
  const exec = async (argv: string[], options: SandboxExecOptions): Promise<SandboxExecResult> => {
    if (argv.includes('find')) {
      options.stdoutTo!.end(Buffer.from(files.map((f, i) => `f ${i + 1} ${f.content.length} 1.0 1.0 ${f.name}\0`).join(''), 'utf8'));
      return { exitCode: 0, stdout: '', stderr: '', timedOut: false };
    }
    // tar's archive, read by read as an exec gives it to a reader (paused while the reader asks for no more)
    const out = new PassThrough();
    readStreamInto(out, options.stdoutReader!);
    // aborting cuts the stream, as the engine's exec and the agent's pipe do
    options.signal?.addEventListener('abort', () => out.destroy());
    const archive = pack();
    for (const f of files) archive.entry({ name: `./${f.name}`, size: f.content.length, type: 'file' }, f.content);
    archive.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    const whole = Buffer.concat(chunks);
    await new Promise<void>((resolve) => {
      out.on('end', resolve);
      out.on('close', resolve);
      out.end(end.cutShort ? whole.subarray(0, Math.floor(whole.length / 2) + 100) : whole);
    });
    return { exitCode: end.exitCode, stdout: '', stderr: end.stderr, timedOut: false };
  };
  return { exec };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('tarWorkspace', () => {
  it('hands files to the sink in the archive order, several under way at once (a few), and ends only once every one is taken', async () => {
    const files = Array.from({ length: 30 }, (_, i) => ({ name: `data/part-${String(i).padStart(2, '0')}.bin`, content: randomBytes(64 * 1024) }));
    const called: string[] = [];
    const taken = new Map<string, Buffer>();
    let underWay = 0;
    let most = 0;
    const sink: WorkspaceFileSink = async (path, content) => {
      called.push(path);
      underWay += 1;
      most = Math.max(most, underWay);
      // the first files are the slowest to take: later ones finish before them
      await sleep(called.length <= 3 ? 60 : 5);
      // a copy: its buffer serves a later file once this one is taken
      taken.set(path, Buffer.from(content!));
      underWay -= 1;
    };
    const walk = await tarWorkspace(fakeWorkspace(files), sink, CAPS);
    expect(walk).toMatchObject({ files: 30, bytes: 30 * 64 * 1024, skipped: [] });
    expect(called).toEqual(files.map((f) => f.name));
    expect(underWay).toBe(0);
    expect(taken.size).toBe(30);
    for (const f of files) expect(taken.get(f.name)?.equals(f.content)).toBe(true);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(8);
  });

  it('fails with the sink\'s own error when one file cannot be taken, with no call to the sink still under way', async () => {
    const files = Array.from({ length: 20 }, (_, i) => ({ name: `f${i}.txt`, content: Buffer.from(`file ${i}`) }));
    let underWay = 0;
    const sink: WorkspaceFileSink = async (path) => {
      underWay += 1;
      try {
        await sleep(path === 'f3.txt' ? 5 : 40);
        if (path === 'f3.txt') throw new Error('the disk is full');
      } finally {
        underWay -= 1;
      }
    };
    await expect(tarWorkspace(fakeWorkspace(files), sink, CAPS)).rejects.toThrow('the disk is full');
    expect(underWay).toBe(0);
  });

  it('holds at most a window of bytes in the sink: big files are taken one after the other', async () => {
    const files = Array.from({ length: 4 }, (_, i) => ({ name: `big-${i}.bin`, content: randomBytes(20 * 1024 * 1024) }));
    let underWay = 0;
    let most = 0;
    const sink: WorkspaceFileSink = async () => {
      underWay += 1;
      most = Math.max(most, underWay);
      await sleep(20);
      underWay -= 1;
    };
    await tarWorkspace(fakeWorkspace(files), sink, CAPS);
    // 32 MiB at most under way: one 20 MiB file at a time
    expect(most).toBe(1);
  });
});

describe('tarWorkspace, when tar fails', () => {
  const files = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.bin`, content: randomBytes(300 * 1024) }));
  const sink: WorkspaceFileSink = async () => undefined;

  it('says tar failed, with its exit code and words, rather than the archive it left cut short', async () => {
    const killed = fakeWorkspace(files, { exitCode: 137, stderr: 'tar: killed by the timeout\n', cutShort: true });
    await expect(tarWorkspace(killed, sink, CAPS)).rejects.toMatchObject({ code: 'EXEC_FAILED', message: 'Reading the workspace failed (tar exit 137): tar: killed by the timeout\n' });
  });

  it('refuses an archive cut short although tar says it ended well', async () => {
    const short = fakeWorkspace(files, { exitCode: 0, stderr: '', cutShort: true });
    await expect(tarWorkspace(short, sink, CAPS)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: 'The tar stream closed before its end' });
  });

  it('hands no file to the sink once it has failed: what waited for room is dropped, what was being taken is waited for', async () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ name: `g${i}.bin`, content: randomBytes(100 * 1024) }));
    let settled = false;
    let late = 0;
    let underWay = 0;
    const slow: WorkspaceFileSink = async () => {
      if (settled) late += 1;
      underWay += 1;
      await sleep(30);
      underWay -= 1;
    };
    for (const end of [{ exitCode: 137, stderr: 'tar: killed\n' }, { exitCode: 0, stderr: '', cutShort: true }]) {
      settled = false;
      const failed = tarWorkspace(fakeWorkspace(many, end), slow, CAPS).finally(() => (settled = true));
      await expect(failed).rejects.toThrow(end.exitCode === 137 ? /tar exit 137/ : /closed before its end/);
      expect(underWay).toBe(0);
      await sleep(200);
      expect(late).toBe(0);
    }
  });

  it('names the files tar could not read (exit 2) and keeps the others', async () => {
    const partly = fakeWorkspace(files, { exitCode: 2, stderr: 'tar: ./secret.txt: Cannot open: Permission denied\ntar: Exiting with failure status due to previous errors\n' });
    const walk = await tarWorkspace(partly, sink, CAPS);
    expect(walk).toMatchObject({ files: 6, skipped: ['secret.txt'] });
  });
});

describe('untarWorkspace, files that come one by one (a fork)', () => {
  /** A tar in the sandbox that reads its archive whole, then never ends until it is aborted. */
  function hungTar(): { sandbox: WorkspaceExec; read: () => number } {
    let bytes = 0;
    const exec = async (_argv: string[], options: SandboxExecOptions): Promise<SandboxExecResult> => {
      for await (const chunk of options.stdin as AsyncIterable<Buffer>) bytes += chunk.length;
      await new Promise<void>((_resolve, reject) => options.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
      return { exitCode: 0, stdout: '', stderr: '', timedOut: false };
    };
    return { sandbox: { exec }, read: () => bytes };
  }

  it('gives tar the time the files that came take once the last has come, then ends it with EXEC_TIMEOUT', async () => {
    vi.useFakeTimers();
    try {
      const { sandbox, read } = hungTar();
      const queue = new AsyncQueue<StreamFile>();
      const writing = untarWorkspace(sandbox, queue, { maxFileBytes: 64 * 1024 * 1024, maxBytes: 1024 * 1024 * 1024 });
      const outcome = writing.then(() => undefined, (error: unknown) => error as { code?: string; message?: string });
      queue.push({ path: 'a.bin', size: 2 * 1024 * 1024, load: () => Promise.resolve(Buffer.alloc(2 * 1024 * 1024, 7)) });
      queue.end();
      // 60 s and 1 s per MiB (2 MiB): not yet at 61 s, at 62 s
      await vi.advanceTimersByTimeAsync(61_000);
      expect(read()).toBeGreaterThan(2 * 1024 * 1024);
      let settled = false;
      void outcome.then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1_000);
      const error = await outcome;
      expect(error?.code).toBe('EXEC_TIMEOUT');
      expect(error?.message).toBe("Writing the snapshot's files into /workspace did not end within 62 s of the last file.");
    } finally {
      vi.useRealTimers();
    }
  });
});
