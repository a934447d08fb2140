import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { SandpitError } from '../../shared/api/errors';
import { TarPushParser } from './tar-push-parser';
import type { PushedTarHeader } from './tar-push-parser';
import { walkTar } from './tar-walk';

const folder = mkdtempSync(join(tmpdir(), 'sandpit-tar-push-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const LONG_NAME = `${'deep-folder-name/'.repeat(8)}${'a'.repeat(120)}.txt`;
/** Over 100 bytes, with a last part under 100: ustar splits it into a prefix and a name. */
const PREFIXED_NAME = `${'deep-folder-name/'.repeat(5)}${'m'.repeat(40)}.txt`;
const FILES: Record<string, Buffer> = {
  [PREFIXED_NAME]: Buffer.from('split in two fields'),
  'empty.txt': Buffer.alloc(0),
  'one-block.bin': randomBytes(512),
  'odd.bin': randomBytes(513),
  'big.bin': randomBytes(300 * 1024 + 7),
  'zeros.bin': Buffer.alloc(70 * 1024),
  'ünïcode €.txt': Buffer.from('named in UTF-8'),
  [LONG_NAME]: Buffer.from('a long name'),
};

/** A real workspace archived by GNU tar (the program the snapshot runs), in `format`. */
function gnuTar(format: 'gnu' | 'posix' | 'ustar'): Buffer {
  const root = join(folder, format);
  for (const [name, content] of Object.entries(FILES)) {
    if (format === 'ustar' && name === LONG_NAME) continue; // ustar cannot hold a name part over 100 bytes
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  symlinkSync('/etc/passwd', join(root, 'link'));
  execFileSync('mkfifo', [join(root, 'fifo')]);
  return execFileSync('tar', ['--create', '--file=-', `--format=${format}`, '--blocking-factor=512', '-C', root, '.'], { maxBuffer: 64 * 1024 * 1024 });
}

interface Seen {
  headers: PushedTarHeader[];
  files: Map<string, Buffer>;
}

/** Every entry's header, and the bodies of regular files, pushed in pieces of `sizes` (cycled). */
function pushed(archive: Buffer, sizes: number[], maxArchiveBytes = 64 * 1024 * 1024): Seen {
  const seen: Seen = { headers: [], files: new Map() };
  // one buffer for every read, overwritten after each push: the parser must keep nothing of it
  const reads = Buffer.alloc(Math.max(...sizes));
  const parser = new TarPushParser({
    entry: (header) => {
      seen.headers.push(header);
      return header.type === 'file' ? Buffer.alloc(header.size + 3) : undefined;
    },
    body: (header, content) => {
      seen.files.set(header.name, Buffer.from(content));
    },
  }, { maxArchiveBytes });
  let at = 0;
  for (let i = 0; at < archive.length; i++) {
    const n = Math.min(sizes[i % sizes.length]!, archive.length - at);
    archive.copy(reads, 0, at, at + n);
    parser.push(reads.subarray(0, n));
    reads.fill(0xee);
    at += n;
  }
  parser.end();
  return seen;
}

/** What tar-stream (the parser of every other archive here) reads in the same archive. */
async function reference(archive: Buffer): Promise<Seen> {
  const seen: Seen = { headers: [], files: new Map() };
  await walkTar(archive, { timeoutMs: 10_000, maxArchiveBytes: 64 * 1024 * 1024 }, async (header, body) => {
    seen.headers.push({ name: header.name, type: header.type as PushedTarHeader['type'], size: header.size ?? 0 });
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    if (header.type === 'file') seen.files.set(header.name, Buffer.concat(chunks));
  });
  return seen;
}

describe('TarPushParser', () => {
  it.each(['gnu', 'posix', 'ustar'] as const)('reads what GNU tar writes (%s format) as tar-stream does, however the bytes are split', async (format) => {
    const archive = gnuTar(format);
    const expected = await reference(archive);
    // names, types (a link, a fifo, folders) and sizes as tar-stream gives them; the long name whole
    expect(expected.headers.map((h) => h.type)).toEqual(expect.arrayContaining(['file', 'directory', 'symlink', 'fifo']));
    if (format !== 'ustar') expect(expected.files.get(`./${LONG_NAME}`)?.toString()).toBe('a long name');
    expect(expected.files.get(`./${PREFIXED_NAME}`)?.toString()).toBe('split in two fields');
    for (const sizes of [[1], [511, 2, 1024], [7919], [256 * 1024], [archive.length]]) {
      const seen = pushed(archive, sizes);
      expect(seen.headers).toEqual(expected.headers);
      expect([...seen.files.keys()]).toEqual([...expected.files.keys()]);
      for (const [name, content] of expected.files) expect(seen.files.get(name)?.equals(content), `${name} split as ${sizes.join(',')}`).toBe(true);
    }
    for (const [name, content] of Object.entries(FILES)) {
      if (format === 'ustar' && name === LONG_NAME) continue;
      expect(pushed(archive, [4096]).files.get(`./${name}`)?.equals(content), name).toBe(true);
    }
  });

  it('applies a pax header\'s path and size, and skips the bodies it is not given a buffer for', () => {
    const archive = Buffer.concat([
      paxEntry({ path: 'renamed/by-pax.txt' }),
      ustarHeader('short-name.txt', '0', 5),
      pad(Buffer.from('hello')),
      ustarHeader('skipped.bin', '0', 1000),
      pad(randomBytes(1000)),
      ustarHeader('after.txt', '0', 2),
      pad(Buffer.from('ok')),
      Buffer.alloc(1024),
    ]);
    const bodies: string[] = [];
    const names: string[] = [];
    const parser = new TarPushParser({
      entry: (h) => {
        names.push(h.name);
        return h.name === 'skipped.bin' ? undefined : Buffer.alloc(h.size);
      },
      body: (h, content) => bodies.push(`${h.name}=${content.toString()}`),
    }, { maxArchiveBytes: 1 << 20 });
    parser.push(archive);
    parser.end();
    expect(names).toEqual(['renamed/by-pax.txt', 'skipped.bin', 'after.txt']);
    expect(bodies).toEqual(['renamed/by-pax.txt=hello', 'after.txt=ok']);
  });

  it('reads a size in GNU base-256 (the form of files over 8 GiB)', () => {
    const header = ustarHeader('base256.bin', '0', 0, (block) => {
      block.fill(0, 124, 136);
      block[124] = 0x80;
      block.writeUIntBE(600, 130, 6);
    });
    const sizes: number[] = [];
    const parser = new TarPushParser({ entry: (h) => (sizes.push(h.size), undefined), body: () => undefined }, { maxArchiveBytes: 1 << 20 });
    parser.push(Buffer.concat([header, pad(randomBytes(600))]));
    parser.end();
    expect(sizes).toEqual([600]);
  });

  it('refuses a damaged header, an archive cut short, one over its byte cap and an oversized long name, with plain errors', () => {
    const good = Buffer.concat([ustarHeader('a.txt', '0', 3), pad(Buffer.from('abc'))]);
    const damaged = Buffer.from(good);
    damaged[0] = 'b'.charCodeAt(0);
    const run = (bytes: Buffer, max = 1 << 20): TarPushParser => {
      const parser = new TarPushParser({ entry: (h) => Buffer.alloc(h.size), body: () => undefined }, { maxArchiveBytes: max });
      parser.push(bytes);
      return parser;
    };
    expect(() => run(damaged)).toThrow(/^The tar archive is malformed: a header's checksum is wrong/);
    expect(codeOf(() => run(damaged))).toBe('INVALID_INPUT');
    expect(() => run(Buffer.from('this is not a tar archive, not even close '.repeat(20)))).toThrow(/malformed/);
    expect(() => run(good.subarray(0, 700)).end()).toThrow('The tar stream closed before its end');
    expect(codeOf(() => run(good.subarray(0, 700)).end())).toBe('INVALID_INPUT');
    expect(() => run(good.subarray(0, 100)).end()).toThrow('The tar stream closed before its end');
    expect(() => run(good, 1000)).toThrow('The tar archive is larger than 1000 bytes');
    expect(codeOf(() => run(good, 1000))).toBe('LIMIT_EXCEEDED');
    expect(() => run(ustarHeader('././@LongLink', 'L', 2 * 1024 * 1024))).toThrow(/malformed: a long name or pax header of 2097152 bytes/);
    const letters = ustarHeader('a.txt', '0', 3, (block) => block.write('12345678abc\0', 124, 'latin1'));
    expect(() => run(letters)).toThrow(/malformed/);
    // once failed, it stays failed: the same error again, nothing more parsed
    const parser = new TarPushParser({ entry: () => undefined, body: () => undefined }, { maxArchiveBytes: 1 << 20 });
    expect(() => parser.push(damaged)).toThrow(/checksum/);
    expect(() => parser.push(good)).toThrow(/checksum/);
    expect(() => parser.end()).toThrow(/checksum/);
  });

  it('stops at a handler\'s refusal and gives its error out of push', () => {
    const archive = Buffer.concat([ustarHeader('one.txt', '0', 1), pad(Buffer.from('1')), ustarHeader('two.txt', '0', 1), pad(Buffer.from('2'))]);
    const names: string[] = [];
    const parser = new TarPushParser({
      entry: (h) => {
        names.push(h.name);
        if (h.name === 'two.txt') throw new Error('two files are too many');
        return Buffer.alloc(h.size);
      },
      body: () => undefined,
    }, { maxArchiveBytes: 1 << 20 });
    expect(() => parser.push(archive)).toThrow('two files are too many');
    expect(names).toEqual(['one.txt', 'two.txt']);
  });
});

/** The code of the SandpitError `run` throws. */
function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof SandpitError ? error.code : undefined;
  }
  return undefined;
}

/** A ustar header (checksum computed after `edit`). */
function ustarHeader(name: string, type: string, size: number, edit?: (block: Buffer) => void): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, 'utf8');
  block.write('0000644\0', 100, 'latin1');
  block.write('0000000\0', 108, 'latin1');
  block.write('0000000\0', 116, 'latin1');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  block.write('00000000000\0', 136, 'latin1');
  block.write(type, 156, 'latin1');
  block.write('ustar\x0000', 257, 'latin1');
  edit?.(block);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

function pad(body: Buffer): Buffer {
  return Buffer.concat([body, Buffer.alloc((512 - (body.length % 512)) % 512)]);
}

/** A pax extended header ('x') with these records. */
function paxEntry(records: Record<string, string>): Buffer {
  const body = Buffer.concat(
    Object.entries(records).map(([key, value]) => {
      const rest = ` ${key}=${value}\n`;
      let length = Buffer.byteLength(rest) + 1;
      while (String(length).length + Buffer.byteLength(rest) !== length) length += 1;
      return Buffer.from(`${length}${rest}`);
    }),
  );
  return Buffer.concat([ustarHeader('PaxHeader/x', 'x', body.length), pad(body)]);
}

// tar-stream's own packer writes long names as pax records: the parser reads those too.
it('reads the archives tar-stream packs (long names as pax records)', async () => {
  const archive = await new Promise<Buffer>((resolve, reject) => {
    const p = pack();
    const chunks: Buffer[] = [];
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', () => resolve(Buffer.concat(chunks)));
    p.on('error', reject);
    p.entry({ name: `${'x'.repeat(150)}/${'y'.repeat(150)}.bin`, size: 3 }, Buffer.from('xyz'));
    p.entry({ name: 'folder', type: 'directory' });
    p.finalize();
  });
  const seen = pushed(archive, [100]);
  expect(seen.headers).toEqual((await reference(archive)).headers);
  expect(seen.files.get(`${'x'.repeat(150)}/${'y'.repeat(150)}.bin`)?.toString()).toBe('xyz');
});
