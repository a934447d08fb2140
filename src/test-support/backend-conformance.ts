import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_PRODUCTS } from '../shared/domain/engine';
import { DEFAULT_LIMITS } from '../shared/domain/limits';
import type { AgentChannel } from '../core/sandbox/agent-channel';
import type { AgentMessage } from '../core/sandbox/protocol';
import type { Sandbox, SandboxBackend, SandboxSpec } from '../core/sandbox/sandbox-backend';
import { PACKAGES_DIR } from '../core/sandbox/sandbox-paths';
import { pausingReader } from './pausing-reader';
import { packFiles } from '../core/files/safe-tar';
import { walkTar } from '../core/files/tar-walk';
import { newId } from '../core/util/ids';
import { pollUntil, withTimeout } from '../core/util/with-timeout';

/** One backend to hold to the port's contract, with what the suite cannot ask through the port itself. */
export interface BackendUnderTest {
  backend: SandboxBackend;
  /** An executor image of the python flavour on this engine. */
  image: string;
  /** The instance the backend works for: every resource it holds for a sandbox names it, for the reaper. */
  instanceId: string;
  /** What the engine still holds for a session (containers, volumes …), each with the owner instance it names. */
  leftovers(sessionId: string): Promise<Array<{ what: string; owner: string | undefined }>>;
  /** The network a helper joins to reach nothing beyond the engine (Docker: its default bridge). */
  helperNetwork: string;
  /** Makes a process of the sandbox (not its main one) run out of memory; resolves once it was killed. */
  memoryHog(sandbox: Sandbox): Promise<void>;
  cleanup(): Promise<void>;
}

const START_MS = 60_000;

function spec(image: string, overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return { sessionId: newId('ses'), language: 'python', image, limits: { ...DEFAULT_LIMITS, memoryMb: 256 }, isolation: 'standard', pooled: false, ...overrides };
}

/** Sends one request on the channel and collects the agent's messages for it until `last` says it is over. */
function exchange(channel: AgentChannel, message: { type: 'hello' } | { type: 'execute'; code: string }, last: (m: AgentMessage) => boolean): Promise<AgentMessage[]> {
  const id = newId('req', 8);
  const seen: AgentMessage[] = [];
  return withTimeout(
    new Promise<AgentMessage[]>((resolve) => {
      channel.onMessage((m) => {
        if (m.id !== id) return;
        seen.push(m);
        if (last(m)) resolve(seen);
      });
      channel.send(message.type === 'hello' ? { type: 'hello', id } : { type: 'execute', id, code: message.code, outputLimit: 64 * 1024 });
    }),
    30_000,
    `the agent's answer to ${message.type}`,
  );
}

/**
 * The contract every SandboxBackend keeps, asked through the port only (src/core/sandbox/sandbox-backend.ts):
 * create, start with the agent's channel, exec as the sandbox user, workspace files in and out on a program's
 * streams, the package store in and out, a helper
 * beside the sandbox, stats, kill and state, memory kills reported (or said to go unreported), remove, and
 * every resource labelled with its owner so a reaper can find it.
 */
export interface ConformanceOptions {
  skip?: boolean;
  /** False for a backend that runs no real program (the in-memory one, whose agent is a script): the cases that run code say so and are skipped. */
  runsPrograms: boolean;
}

export function backendConformance(label: string, open: () => Promise<BackendUnderTest>, options: ConformanceOptions): void {
  const programs = options.runsPrograms ? '' : ' — SKIPPED: this backend runs no real program';
  describe.skipIf(options.skip === true)(`SandboxBackend conformance on ${label}`, () => {
    let bt: BackendUnderTest;
    let made: SandboxSpec;
    let sandbox: Sandbox;
    let channel: AgentChannel;

    beforeAll(async () => {
      bt = await open();
      made = spec(bt.image);
      sandbox = await bt.backend.create(made);
      channel = await sandbox.start(START_MS);
    });
    afterAll(async () => {
      await sandbox?.remove().catch(() => undefined);
      await bt?.cleanup();
    });

    it('answers ping with the engine it is, and says how to fix it when it is down', async () => {
      const info = await bt.backend.ping(30_000);
      expect(ENGINE_PRODUCTS).toContain(info.product);
      expect(info.version).not.toBe('');
      expect(bt.backend.fixHint()).not.toBe('');
    });

    it("starts a sandbox whose agent answers hello on the backend's channel", async () => {
      expect(channel.kind).toBe(bt.backend.channel);
      const [hello] = await exchange(channel, { type: 'hello' }, (m) => m.type === 'hello');
      expect(hello).toMatchObject({ type: 'hello', language: 'python', protocol: 1 });
      expect((await sandbox.state()).running).toBe(true);
    });

    it('takes its own sandbox back from its record as made (a kept session after a restart), and not with looser limits than it was made with', async () => {
      // Reopening reads the container's protections back from the engine, as each engine reports them.
      const again = await bt.backend.reopen(made, sandbox.record());
      expect(again.containerId).toBe(sandbox.containerId);
      const tighter = { ...made, limits: { ...made.limits, memoryMb: made.limits.memoryMb / 2 } };
      await expect(bt.backend.reopen(tighter, sandbox.record())).rejects.toThrow(
        new RegExp(`was not made with a sandbox's protections \\(its memory limit is ${made.limits.memoryMb} MiB, not ${made.limits.memoryMb / 2} MiB\\)`),
      );
      expect((await sandbox.state()).running).toBe(true);
    });

    it.skipIf(!options.runsPrograms)(`runs code over the channel and ends with done${programs}`, async () => {
      const messages = await exchange(channel, { type: 'execute', code: 'x = 6 * 7\nprint("out")\nx' }, (m) => m.type === 'done');
      expect(messages.find((m) => m.type === 'result')).toMatchObject({ text: '42' });
      expect(messages.find((m) => m.type === 'stream')).toMatchObject({ name: 'stdout', text: 'out\n' });
      expect(messages.at(-1)).toMatchObject({ type: 'done', status: 'ok' });
    });

    it.skipIf(!options.runsPrograms)(`runs a program (argv, no shell line) as the sandbox user, with stdin, its output and exit code${programs}`, async () => {
      const r = await sandbox.exec(['sh', '-c', 'id -u; cat; echo to-stderr >&2; exit 3'], { stdin: Buffer.from('from-stdin\n'), timeoutMs: 20_000 });
      expect(r).toMatchObject({ exitCode: 3, stdout: '10001\nfrom-stdin\n', stderr: 'to-stderr\n', timedOut: false });
      const slow = await sandbox.exec(['sleep', '30'], { timeoutMs: 500 });
      expect(slow.timedOut).toBe(true);
    });

    it.skipIf(!options.runsPrograms)(`takes a file into /workspace on a program's stdin and gives it back on its stdout, byte for byte${programs}`, async () => {
      // How the Session moves workspace files (a tar stream in and out, sessions/workspace-tar.ts): binary, streamed.
      const bytes = randomBytes(256 * 1024);
      const wrote = await sandbox.exec(['sh', '-c', 'cat > /workspace/conformance.bin'], { stdin: Readable.from([bytes]), timeoutMs: 20_000 });
      expect(wrote).toMatchObject({ exitCode: 0, timedOut: false });
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (chunk: Buffer) => chunks.push(chunk));
      const read = await sandbox.exec(['cat', '/workspace/conformance.bin'], { stdoutTo: out, timeoutMs: 20_000 });
      await withTimeout(finished(out), 10_000, 'the end of the stdout stream');
      expect(read).toMatchObject({ exitCode: 0, timedOut: false });
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    });

    it.skipIf(!options.runsPrograms)(`gives a program's stdout to a reader read by read, paused while it asks, every byte taken once the exec resolves${programs}`, async () => {
      // How a snapshot reads the workspace's tar stream (workspace-tar.ts): each read taken at once, none kept.
      const bytes = randomBytes(3 * 1024 * 1024);
      const wrote = await sandbox.exec(['sh', '-c', 'cat > /workspace/conformance-reader.bin'], { stdin: Readable.from([bytes]), timeoutMs: 20_000 });
      expect(wrote).toMatchObject({ exitCode: 0, timedOut: false });
      const reader = pausingReader(5, 5);
      const read = await sandbox.exec(['cat', '/workspace/conformance-reader.bin'], { timeoutMs: 20_000, stdoutReader: reader });
      expect(read).toMatchObject({ exitCode: 0, timedOut: false });
      expect(reader.pauses).toBeGreaterThan(0);
      expect(reader.bytes().equals(bytes)).toBe(true);
    });

    it('takes files into the package store and gives them back out, regular files only', async () => {
      expect(await sandbox.exportPackages(1024 * 1024)).toBeUndefined();
      const tar = await packFiles([{ path: 'demo/__init__.py', content: Buffer.from('VALUE = 42\n') }], { maxFileBytes: 1024, maxTotalBytes: 4096 });
      await sandbox.importPackages(tar);
      if (options.runsPrograms) {
        const read = await sandbox.exec(['cat', `${PACKAGES_DIR}/demo/__init__.py`], { timeoutMs: 20_000 });
        expect(read.stdout).toBe('VALUE = 42\n');
      }
      const out = await sandbox.exportPackages(1024 * 1024);
      expect(out?.bytes).toBeGreaterThan(0);
      const files = new Map<string, string>();
      await walkTar(out!.tar, { timeoutMs: 10_000, maxArchiveBytes: 1024 * 1024 }, async (header, body) => {
        const chunks: Buffer[] = [];
        for await (const chunk of body) chunks.push(chunk as Buffer);
        if (header.type === 'file') files.set(header.name.replace(/^\.?\//, ''), Buffer.concat(chunks).toString('utf8'));
      });
      expect([...files].find(([name]) => name.endsWith('demo/__init__.py'))?.[1]).toBe('VALUE = 42\n');
    });

    it.skipIf(!options.runsPrograms)(`runs a helper beside the sandbox that writes its package store, the sandbox sees what it wrote${programs}`, async () => {
      const r = await sandbox.runHelper({ cmd: ['sh', '-c', `echo from-helper > ${PACKAGES_DIR}/helper.txt; id -u`], env: {}, network: bt.helperNetwork, timeoutMs: 60_000, maxOutputBytes: 64 * 1024 });
      expect(r.exitCode).toBe(0);
      expect((await sandbox.exec(['cat', `${PACKAGES_DIR}/helper.txt`], { timeoutMs: 20_000 })).stdout).toBe('from-helper\n');
    });

    it('reports resource use', async () => {
      const stats = await sandbox.stats();
      expect(stats.memoryBytes).toBeGreaterThan(0);
      expect(stats.memoryLimitBytes).toBe(256 * 1024 * 1024);
      expect(stats.pids).toBeGreaterThan(0);
    });

    it('reports a process killed for memory, or says the engine does not report it', async () => {
      const since = Date.now();
      await bt.memoryHog(sandbox);
      expect((await sandbox.state()).running).toBe(true);
      if (sandbox.unreportedOom) expect(await sandbox.waitForOom(since, 2_000)).toBe(false);
      else expect(await sandbox.waitForOom(since, 10_000)).toBe(true);
    });

    it('labels everything it holds for a sandbox with its owner, kills it, and removes all of it (twice is fine)', async () => {
      const held = await bt.leftovers(sandbox.sessionId);
      expect(held.length).toBeGreaterThan(0);
      for (const thing of held) expect(thing.owner, thing.what).toBe(bt.instanceId);
      await sandbox.kill();
      await pollUntil(async () => ((await sandbox.state()).running ? undefined : true), 20_000, 'the sandbox to stop after kill');
      expect(channel.closed || (await pollUntil(() => (channel.closed ? true : undefined), 10_000, 'the channel to close'))).toBe(true);
      await sandbox.remove();
      await sandbox.remove();
      expect(await bt.leftovers(sandbox.sessionId)).toEqual([]);
    });
  });
}
