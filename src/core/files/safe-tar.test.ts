import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { extract, pack } from 'tar-stream';
import type { Header } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import type { ErrorCode } from '../../shared/api/errors';
import { listTar, packFiles, parseTar } from './safe-tar';
import type { ParseTarOptions } from './safe-tar';

const CAPS: ParseTarOptions = { maxFileBytes: 1024 * 1024, maxTotalBytes: 4 * 1024 * 1024, maxEntries: 100 };

// ---- crafting archives -------------------------------------------------------------------------

interface RawEntry {
  name: string;
  /** typeflag character: '0' file, '1' hard link, '2' symlink, '3' char, '4' block, '5' dir, '6' fifo, 'L' GNU long name… */
  flag?: string;
  content?: Buffer | string;
  /** Declared size when it differs from the content's (lies, huge sizes). */
  size?: number;
  linkname?: string;
  mode?: number;
}

function octal(buffer: Buffer, value: number, offset: number, length: number): void {
  buffer.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'latin1');
}

/** One 512-byte ustar header, written by hand so that it can say anything. */
function rawHeader(entry: RawEntry, size: number): Buffer {
  const header = Buffer.alloc(512);
  header.write(entry.name, 0, 100, 'utf8');
  octal(header, entry.mode ?? 0o644, 100, 8);
  octal(header, 10_001, 108, 8);
  octal(header, 10_001, 116, 8);
  if (size < 8 ** 11) octal(header, size, 124, 12);
  else {
    header[124] = 0x80; // base-256 size for huge declared sizes
    let rest = size;
    for (let index = 135; index > 124; index -= 1) {
      header[index] = rest % 256;
      rest = Math.floor(rest / 256);
    }
  }
  octal(header, 1_700_000_000, 136, 12);
  header.write(entry.flag ?? '0', 156, 1, 'latin1');
  if (entry.linkname !== undefined) header.write(entry.linkname, 157, 100, 'utf8');
  header.write('ustar\0', 257, 6, 'latin1');
  header.write('00', 263, 2, 'latin1');
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return header;
}

function padding(size: number): Buffer {
  return Buffer.alloc((512 - (size % 512)) % 512);
}

function rawEntry(entry: RawEntry): Buffer {
  const content = Buffer.from(entry.content ?? '');
  return Buffer.concat([rawHeader(entry, entry.size ?? content.length), content, padding(content.length)]);
}

function rawTar(entries: RawEntry[], end = true): Buffer {
  return Buffer.concat([...entries.map(rawEntry), end ? Buffer.alloc(1024) : Buffer.alloc(0)]);
}

/** A tar made by tar-stream's packer (pax headers included), straight from headers. */
async function tarStreamTar(
  entries: Array<{ header: Header | (Partial<Header> & { name: string }); content?: string }>,
): Promise<Buffer> {
  const packer = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    packer.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    packer.on('end', () => resolve(Buffer.concat(chunks)));
    packer.on('error', reject);
  });
  for (const entry of entries) {
    if (entry.content === undefined) packer.entry(entry.header);
    else packer.entry(entry.header, Buffer.from(entry.content));
  }
  packer.finalize();
  return done;
}

async function rejection(promise: Promise<unknown>, code: ErrorCode): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (!isSandpitError(error, code)) throw error;
    return error.message;
  }
  throw new Error(`expected ${code}`);
}

/** Headers of an archive as a plain extractor sees them. */
async function headersOf(tar: Buffer): Promise<Header[]> {
  const headers: Header[] = [];
  const parser = extract();
  const done = new Promise<void>((resolve, reject) => {
    parser.on('entry', (header, body, next) => {
      headers.push(header);
      body.on('end', () => next());
      body.resume();
    });
    parser.on('finish', () => resolve());
    parser.on('error', reject);
  });
  parser.end(tar);
  await done;
  return headers;
}

// ---- pack -------------------------------------------------------------------------------------

describe('packFiles', () => {
  it('round-trips through parseTar, with folders and owners as the sandbox expects', async () => {
    const files = [
      { path: 'hello.txt', content: Buffer.from('hello\n') },
      { path: 'src/pkg/main.py', content: Buffer.from('print(1)\n'), mode: 0o755 },
      { path: './src/pkg//util.py', content: Buffer.from('x = 2\n') },
      { path: 'empty.bin', content: Buffer.alloc(0) },
      { path: `deep/${'d'.repeat(120)}/${'n'.repeat(200)}.txt`, content: Buffer.from('long name') },
      { path: 'unicode/日本語.txt', content: Buffer.from('utf-8 name') },
      { path: 'big.bin', content: Buffer.alloc(700_000, 7) },
    ];
    const tar = await packFiles(files, { maxFileBytes: 1024 * 1024, maxTotalBytes: 2 * 1024 * 1024 });

    const headers = await headersOf(tar);
    const folders = headers.filter((h) => h.type === 'directory').map((h) => h.name.replace(/\/$/, ''));
    expect(folders).toEqual(['src', 'src/pkg', 'deep', `deep/${'d'.repeat(120)}`, 'unicode']);
    for (const header of headers) {
      expect(header.uid).toBe(10_001);
      expect(header.gid).toBe(10_001);
      expect(['file', 'directory']).toContain(header.type);
      expect(header.mode).toBe(header.type === 'directory' ? 0o755 : header.name.endsWith('main.py') ? 0o755 : 0o644);
    }
    expect(headers.findIndex((h) => h.name.startsWith('src/pkg/main.py'))).toBeGreaterThan(
      headers.findIndex((h) => h.name.replace(/\/$/, '') === 'src/pkg'),
    );

    const parsed = await parseTar(tar, { ...CAPS, allowDirectories: true });
    expect(parsed.map((f) => f.path)).toEqual([
      'hello.txt',
      'src/pkg/main.py',
      'src/pkg/util.py',
      'empty.bin',
      `deep/${'d'.repeat(120)}/${'n'.repeat(200)}.txt`,
      'unicode/日本語.txt',
      'big.bin',
    ]);
    parsed.forEach((file, index) => expect(file.content.equals(files[index]!.content)).toBe(true));
    expect(parsed[1]!.mode).toBe(0o755);
    expect(parsed[0]!.mtime).toBeInstanceOf(Date);

    // without folders allowed, the same archive is refused
    await rejection(parseTar(tar, CAPS), 'INVALID_INPUT');
  });

  it('drops special permission bits', async () => {
    const tar = await packFiles([{ path: 'x', content: Buffer.from('x'), mode: 0o104755 }], CAPS);
    expect((await headersOf(tar))[0]!.mode).toBe(0o755);
  });

  it.each(['../evil', '/etc/passwd', 'a/../../b', 'a\0b', 'a\\b', '', 'C:\\x'])('refuses the name %j', async (path) => {
    await rejection(packFiles([{ path, content: Buffer.from('x') }], CAPS), 'INVALID_INPUT');
  });

  it('refuses duplicates and file/folder clashes', async () => {
    const x = Buffer.from('x');
    await rejection(
      packFiles(
        [
          { path: 'a', content: x },
          { path: './a', content: x },
        ],
        CAPS,
      ),
      'INVALID_INPUT',
    );
    await rejection(
      packFiles(
        [
          { path: 'a', content: x },
          { path: 'a/b', content: x },
        ],
        CAPS,
      ),
      'INVALID_INPUT',
    );
    await rejection(
      packFiles(
        [
          { path: 'a/b', content: x },
          { path: 'a', content: x },
        ],
        CAPS,
      ),
      'INVALID_INPUT',
    );
  });

  it('enforces the size caps', async () => {
    const caps = { maxFileBytes: 10, maxTotalBytes: 15 };
    await rejection(packFiles([{ path: 'a', content: Buffer.alloc(11) }], caps), 'LIMIT_EXCEEDED');
    await rejection(
      packFiles(
        [
          { path: 'a', content: Buffer.alloc(10) },
          { path: 'b', content: Buffer.alloc(6) },
        ],
        caps,
      ),
      'LIMIT_EXCEEDED',
    );
    await expect(packFiles([{ path: 'a', content: Buffer.alloc(10) }], caps)).resolves.toBeInstanceOf(Buffer);
  });
});

// ---- parse: malicious archives ------------------------------------------------------------------

describe('parseTar refuses malicious archives', () => {
  const passwdBefore = existsSync('/etc/passwd')
    ? createHash('sha256').update(readFileSync('/etc/passwd')).digest('hex')
    : '';

  const invalid: Array<[string, () => Buffer | Promise<Buffer>]> = [
    ['a ../ name', () => rawTar([{ name: '../evil', content: 'pwned' }])],
    ['an absolute name', () => rawTar([{ name: '/etc/passwd', content: 'root::0:0::/:/bin/sh' }])],
    ['a name escaping in the middle', () => rawTar([{ name: 'a/../../b', content: 'x' }])],
    ['a backslash name', () => rawTar([{ name: '..\\evil', content: 'x' }])],
    [
      'a NUL in a pax name',
      () => tarStreamTar([{ header: { name: 'ok.txt', pax: { path: 'ok\0.txt' } }, content: 'x' }]),
    ],
    ['a control character in the name', () => rawTar([{ name: 'a\nb', content: 'x' }])],
    ['a symlink', () => rawTar([{ name: 'link', flag: '2', linkname: '/etc/passwd' }])],
    ['a harmless-looking symlink', () => rawTar([{ name: 'link', flag: '2', linkname: 'target.txt' }])],
    ['a hard link', () => rawTar([{ name: 'hard', flag: '1', linkname: '/etc/shadow' }])],
    ['a FIFO', () => rawTar([{ name: 'pipe', flag: '6' }])],
    ['a character device', () => rawTar([{ name: 'null', flag: '3' }])],
    ['a block device', () => rawTar([{ name: 'sda', flag: '4' }])],
    ['a contiguous file', () => rawTar([{ name: 'c', flag: '7', content: 'x' }])],
    ['an unknown entry type', () => rawTar([{ name: 'sparse', flag: 'S', content: 'x' }])],
    [
      'a pax path escaping',
      () => tarStreamTar([{ header: { name: 'safe.txt', pax: { path: '../../evil' } }, content: 'x' }]),
    ],
    [
      'a pax path that is absolute',
      () => tarStreamTar([{ header: { name: 'safe.txt', pax: { path: '/root/.ssh/authorized_keys' } }, content: 'k' }]),
    ],
    [
      'a GNU long name escaping',
      () => {
        const longName = `${'../'.repeat(40)}etc/evil`;
        return rawTar([
          { name: '././@LongLink', flag: 'L', content: `${longName}\0` },
          { name: longName.slice(0, 99), content: 'x' },
        ]);
      },
    ],
    [
      'duplicate names',
      () =>
        rawTar([
          { name: 'a.txt', content: 'first' },
          { name: './a.txt', content: 'second' },
        ]),
    ],
    [
      'a file under a file',
      () =>
        rawTar([
          { name: 'a', content: 'file' },
          { name: 'a/b', content: 'nested' },
        ]),
    ],
    ['a folder when folders are not allowed', () => rawTar([{ name: 'dir/', flag: '5' }])],
    ['a truncated archive', () => rawTar([{ name: 'a.txt', content: 'x'.repeat(1000) }]).subarray(0, 900)],
    ['garbage', () => Buffer.from('this is not a tar archive at all'.repeat(40))],
    [
      'a bad checksum',
      () => Buffer.concat([rawEntry({ name: 'a', content: 'x' }).fill(0x31, 148, 150), Buffer.alloc(1024)]),
    ],
  ];

  it.each(invalid)('refuses %s with INVALID_INPUT', async (_label, build) => {
    const tar = await build();
    await rejection(parseTar(tar, CAPS), 'INVALID_INPUT');
    await rejection(parseTar(Readable.from(chunksOf(tar, 100)), CAPS), 'INVALID_INPUT');
  });

  it('refuses a folder with a size even when folders are allowed', async () => {
    const tar = rawTar([{ name: 'dir/', flag: '5', size: 512, content: Buffer.alloc(512) }]);
    await rejection(parseTar(tar, { ...CAPS, allowDirectories: true }), 'INVALID_INPUT');
  });

  it('wrote nothing anywhere while refusing', () => {
    expect(existsSync(resolve('../evil'))).toBe(false);
    expect(existsSync(resolve('../../evil'))).toBe(false);
    expect(existsSync('/etc/evil')).toBe(false);
    if (passwdBefore !== '') {
      expect(createHash('sha256').update(readFileSync('/etc/passwd')).digest('hex')).toBe(passwdBefore);
    }
  });

  it('refuses a declared size over the file cap without reading the content', async () => {
    const tar = rawTar([{ name: 'big', size: 10 * 1024 ** 3, content: '' }], false);
    const message = await rejection(parseTar(tar, CAPS), 'LIMIT_EXCEEDED');
    expect(message).toContain('big');
  });

  it('stops pulling from a stream as soon as a declared size crosses the cap', async () => {
    let pulled = 0;
    function* endless(): Generator<Buffer> {
      yield rawHeader({ name: 'huge.bin' }, 64 * 1024 ** 3);
      for (;;) {
        pulled += 1;
        yield Buffer.alloc(64 * 1024);
      }
    }
    const source = Readable.from(endless());
    await rejection(parseTar(source, CAPS), 'LIMIT_EXCEEDED');
    expect(source.destroyed).toBe(true);
    expect(pulled).toBeLessThan(10);
  });

  it('caps the total size of the files', async () => {
    const tar = rawTar([
      { name: 'a', content: Buffer.alloc(600) },
      { name: 'b', content: Buffer.alloc(600) },
    ]);
    await rejection(parseTar(tar, { ...CAPS, maxTotalBytes: 1000 }), 'LIMIT_EXCEEDED');
    await expect(parseTar(tar, { ...CAPS, maxTotalBytes: 1200 })).resolves.toHaveLength(2);
  });

  it('caps the number of entries (folders count too)', async () => {
    const entries = Array.from({ length: 11 }, (_, index) => ({ name: `f${index}`, content: 'x' }));
    await rejection(parseTar(rawTar(entries), { ...CAPS, maxEntries: 10 }), 'LIMIT_EXCEEDED');
    await expect(parseTar(rawTar(entries.slice(0, 10)), { ...CAPS, maxEntries: 10 })).resolves.toHaveLength(10);
    const withFolder = rawTar([{ name: 'd/', flag: '5' }, ...entries.slice(0, 10)]);
    await rejection(parseTar(withFolder, { ...CAPS, maxEntries: 10, allowDirectories: true }), 'LIMIT_EXCEEDED');
  });

  it('caps the raw archive size (an endless stream of empty blocks)', async () => {
    let pulled = 0;
    function* zeros(): Generator<Buffer> {
      for (;;) {
        pulled += 1;
        yield Buffer.alloc(64 * 1024);
      }
    }
    const source = Readable.from(zeros());
    const caps = { maxFileBytes: 1024, maxTotalBytes: 1024, maxEntries: 2, maxArchiveBytes: 1024 * 1024 };
    await rejection(parseTar(source, caps), 'LIMIT_EXCEEDED');
    expect(source.destroyed).toBe(true);
    expect(pulled).toBeLessThan(40);
    await rejection(parseTar(Buffer.alloc(2 * 1024 * 1024), caps), 'LIMIT_EXCEEDED');
  });

  it('times out on a stalled stream and destroys it', async () => {
    const source = new Readable({ read: () => undefined });
    source.push(rawHeader({ name: 'slow.txt' }, 100));
    const message = await rejection(parseTar(source, { ...CAPS, timeoutMs: 50 }), 'LIMIT_EXCEEDED');
    expect(message).toContain('50 ms');
    expect(source.destroyed).toBe(true);
  });

  it('fails when the source fails or closes early', async () => {
    const failing = new Readable({ read: () => undefined });
    failing.push(rawHeader({ name: 'a.txt' }, 100));
    setImmediate(() => failing.destroy(new Error('connection reset')));
    await expect(parseTar(failing, CAPS)).rejects.toThrow('connection reset');

    const closing = new Readable({ read: () => undefined });
    setImmediate(() => closing.destroy());
    await rejection(parseTar(closing, CAPS), 'INVALID_INPUT');
  });
});

// ---- parse: good archives -----------------------------------------------------------------------

function chunksOf(buffer: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < buffer.length; offset += size) chunks.push(buffer.subarray(offset, offset + size));
  return chunks;
}

describe('parseTar accepts what Docker and tar produce', () => {
  it('parses a streamed archive in small chunks with folders and a root entry', async () => {
    const tar = rawTar([
      { name: './', flag: '5', mode: 0o755 },
      { name: './out/', flag: '5', mode: 0o755 },
      { name: './out/plot.png', content: Buffer.alloc(5000, 1), mode: 0o600 },
      { name: 'out/data.csv', content: 'a,b\n1,2\n' },
      { name: 'empty', content: '' },
    ]);
    const files = await parseTar(Readable.from(chunksOf(tar, 333)), { ...CAPS, allowDirectories: true });
    expect(files.map((f) => [f.path, f.content.length, f.mode])).toEqual([
      ['out/plot.png', 5000, 0o600],
      ['out/data.csv', 8, 0o644],
      ['empty', 0, 0o644],
    ]);
    expect(files[0]!.mtime?.getTime()).toBe(1_700_000_000_000);
  });

  it('applies pax names (long and UTF-8 names)', async () => {
    const name = `${'x'.repeat(150)}/${'é'.repeat(60)}.txt`;
    const tar = await tarStreamTar([{ header: { name }, content: 'pax' }]);
    expect(await parseTar(tar, CAPS)).toMatchObject([{ path: name }]);
  });

  it('accepts an empty archive', async () => {
    await expect(parseTar(Buffer.alloc(1024), CAPS)).resolves.toEqual([]);
    await expect(parseTar(Buffer.alloc(0), CAPS)).resolves.toEqual([]);
  });
});

// ---- list ---------------------------------------------------------------------------------------

describe('listTar', () => {
  it('lists every entry type without content', async () => {
    const tar = rawTar([
      { name: 'workspace/', flag: '5' },
      { name: 'workspace/a.txt', content: 'hello' },
      { name: 'workspace/link', flag: '2', linkname: '/etc/passwd' },
      { name: 'workspace/pipe', flag: '6' },
      { name: 'workspace/a.txt', content: 'hello again' },
    ]);
    const entries = await listTar(Readable.from(chunksOf(tar, 200)), { maxEntries: 10 });
    expect(entries).toEqual([
      { path: 'workspace', type: 'directory', size: 0, modifiedAt: new Date(1_700_000_000_000).toISOString() },
      { path: 'workspace/link', type: 'symlink', size: 0, modifiedAt: expect.any(String) as unknown },
      { path: 'workspace/pipe', type: 'other', size: 0, modifiedAt: expect.any(String) as unknown },
      { path: 'workspace/a.txt', type: 'file', size: 11, modifiedAt: expect.any(String) as unknown },
    ]);
  });

  it('validates names unless told to skip bad ones, and leaves out the root', async () => {
    const tar = rawTar([
      { name: './', flag: '5' },
      { name: '../evil', content: 'x' },
      { name: 'ok', content: 'x' },
    ]);
    await rejection(listTar(tar, { maxEntries: 10 }), 'INVALID_INPUT');
    expect((await listTar(tar, { maxEntries: 10, skipInvalidNames: true })).map((e) => e.path)).toEqual(['ok']);
  });

  it('caps entries and time', async () => {
    const tar = rawTar(Array.from({ length: 5 }, (_, index) => ({ name: `f${index}`, content: 'x' })));
    await rejection(listTar(tar, { maxEntries: 4 }), 'LIMIT_EXCEEDED');
    const stalled = new Readable({ read: () => undefined });
    await rejection(listTar(stalled, { maxEntries: 4, timeoutMs: 30 }), 'LIMIT_EXCEEDED');
    expect(stalled.destroyed).toBe(true);
  });
});
