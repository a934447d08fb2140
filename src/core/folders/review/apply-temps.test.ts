// The journal of an apply's temp files is input from the data folder: a line that names anything but a temp
// file of Sandpit's inside the person's folder (a path out of it, a link, another name, a folder) removes nothing.
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApplyTemps } from './apply-temps';

describe('ApplyTemps', () => {
  let root: string | undefined;
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('removes only recorded temp files inside the folder, never what a tampered journal names', async () => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-apply-temps-'));
    const person = join(root, 'person');
    const layer = join(root, 'layer');
    const outside = join(root, 'outside');
    await mkdir(join(person, 'sub'), { recursive: true });
    await mkdir(layer);
    await mkdir(outside);
    const temps = new ApplyTemps(layer, person);
    // what a killed apply left: recorded before it was made
    await temps.record(join(person, '.a.txt.sandpit-0123456789.tmp'));
    await writeFile(join(person, '.a.txt.sandpit-0123456789.tmp'), 'half');
    await temps.record(join(person, 'sub', '.b.csv.sandpit-abcdefabcd.tmp'));
    await writeFile(join(person, 'sub', '.b.csv.sandpit-abcdefabcd.tmp'), 'half');
    // the person's own files, and places out of the folder
    await writeFile(join(person, '.c.sandpit-0000000000.tmp'), 'mine, never recorded');
    await writeFile(join(person, 'notes.txt'), 'mine');
    await writeFile(join(outside, '.x.sandpit-1111111111.tmp'), 'outside');
    await symlink(outside, join(person, 'link'));
    await mkdir(join(person, '.d.sandpit-2222222222.tmp'));
    await writeFile(
      join(layer, 'apply-temps.log'),
      (await readFile(join(layer, 'apply-temps.log'), 'utf8')) +
        [
          'notes.txt',
          '../outside/.x.sandpit-1111111111.tmp',
          `${outside}/.x.sandpit-1111111111.tmp`,
          'link/.x.sandpit-1111111111.tmp',
          '.d.sandpit-2222222222.tmp',
          'sub/../.c.sandpit-0000000000.tmp',
        ].join('\n') +
        '\n',
    );
    expect((await temps.sweep()).sort()).toEqual(['.a.txt.sandpit-0123456789.tmp', 'sub/.b.csv.sandpit-abcdefabcd.tmp']);
    expect((await readdir(person)).sort()).toEqual(['.c.sandpit-0000000000.tmp', '.d.sandpit-2222222222.tmp', 'link', 'notes.txt', 'sub']);
    expect(await readdir(join(person, 'sub'))).toEqual([]);
    expect(await readFile(join(outside, '.x.sandpit-1111111111.tmp'), 'utf8')).toBe('outside');
    expect(await readdir(layer)).toEqual([]);
    // a path out of the folder is never even recorded
    await temps.record(join(outside, '.y.sandpit-3333333333.tmp'));
    expect(await readdir(layer)).toEqual([]);
  });
});
