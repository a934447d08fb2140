// A kill -9 of the core in the middle of applying 1,000 changed files leaves every file of the person's folder
// either its old content or its new one (checked by hash), never half of either; a second apply removes the temp
// files the killed one left (only those it recorded as its own) and finishes the job.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEMP_NAME } from './apply-temps';
import { ReviewLayers } from './review-layers';

const FILES = 1000;
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const oldContent = (i: number): string => `old ${i}\n`.repeat(200);
const newContent = (i: number): string => `new ${i}\n`.repeat(3000);

describe('apply under kill -9', () => {
  let root: string | undefined;
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('leaves every file old or new, and a second apply finishes', async () => {
    root = await mkdtemp(join(tmpdir(), 'sandpit-apply-crash-'));
    const person = join(root, 'person');
    const data = join(root, 'data');
    await mkdir(person);
    for (let i = 0; i < FILES; i++) await writeFile(join(person, `f${i}.txt`), oldContent(i));
    const layers = new ReviewLayers({ dataFolder: data, trash: undefined });
    const layer = (await layers.create(person)).layerPath;
    for (let i = 0; i < FILES; i++) await writeFile(join(layer, `f${i}.txt`), newContent(i));

    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, '../../../test-support/apply-crash-child.mts'),
        data,
        person,
        layer,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Killed once some (not all) files are new: polled on the person's folder, with a timeout.
    let busy = false;
    const killed = await new Promise<boolean>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`the apply never got going: ${stderr}`)), 60_000);
      const poll = setInterval(() => {
        if (busy) return;
        busy = true;
        void (async () => {
          let fresh = 0;
          for (let i = 0; i < FILES; i += 50)
            if ((await readFile(join(person, `f${i}.txt`), 'utf8')).startsWith('new')) fresh++;
          if (fresh < 2) {
            busy = false;
            return;
          }
          // Frozen first (SIGSTOP), so that what is seen is what the kill leaves: killed only while a temp file of
          // the apply is there (it has not been renamed yet), else let go on. One tick at a time (busy).
          child.kill('SIGSTOP');
          await new Promise((r) => setTimeout(r, 20));
          if ((await readdir(person)).some((n) => TEMP_NAME.test(n))) {
            clearInterval(poll);
            clearTimeout(deadline);
            resolve(child.kill('SIGKILL'));
            return;
          }
          child.kill('SIGCONT');
          busy = false;
        })();
      }, 5);
      child.on('exit', () => {
        clearInterval(poll);
        clearTimeout(deadline);
        resolve(false);
      });
    });
    expect(killed, 'the child was killed during the apply (it did not finish first)').toBe(true);
    await new Promise((resolve) => child.once('exit', resolve).once('close', resolve));

    let olds = 0;
    let news = 0;
    for (let i = 0; i < FILES; i++) {
      const hash = sha(await readFile(join(person, `f${i}.txt`)));
      if (hash === sha(oldContent(i))) olds++;
      else if (hash === sha(newContent(i))) news++;
      else throw new Error(`f${i}.txt is neither old nor new`);
    }
    expect(olds + news).toBe(FILES);
    expect(news).toBeGreaterThan(0);
    expect(olds).toBeGreaterThan(0);

    // The killed apply left its temp files (.<file>.sandpit-*.tmp); a look-alike of the person's own is not Sandpit's.
    const temps = (await readdir(person)).filter((n) => TEMP_NAME.test(n));
    expect(temps.length).toBeGreaterThan(0);
    const lookAlike = '.mine.sandpit-0123456789.tmp';
    await writeFile(join(person, lookAlike), 'the person made this');
    // The next apply cleans what the killed one recorded as its own, and finishes the job.
    const outcomes = await layers.apply(layer, person, { all: true });
    expect(outcomes.filter((o) => !o.done)).toEqual([]);
    for (let i = 0; i < FILES; i += 97) expect(await readFile(join(person, `f${i}.txt`), 'utf8')).toBe(newContent(i));
    expect((await readdir(person)).filter((n) => !n.startsWith('.')).length).toBe(FILES);
    expect((await readdir(person)).filter((n) => n.startsWith('.'))).toEqual([lookAlike]);
    expect(await readFile(join(person, lookAlike), 'utf8')).toBe('the person made this');
  }, 120_000);
});
