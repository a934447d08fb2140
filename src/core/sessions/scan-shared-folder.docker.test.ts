import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISOLATION_LEVELS } from '../../shared/domain/isolation';
import type { Language } from '../../shared/domain/languages';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

const PANEL: CallContext = { transport: 'ipc', client: 'panel' };
/** More entries than the agent's after-run scan looks at (20,000). */
const SHARED_FILES = 25_500;

const MAKE_FILE: Record<Exclude<Language, 'bash' | 'typescript'>, string> = {
  python:
    "import os\nos.makedirs('/workspace/out', exist_ok=True)\nopen('/workspace/out/made-by-run.txt', 'w').write('mine')",
  javascript:
    "const fs = require('fs');\nfs.mkdirSync('/workspace/out', { recursive: true });\nfs.writeFileSync('/workspace/out/made-by-run.txt', 'mine');",
  r: 'dir.create("/workspace/out", showWarnings = FALSE)\nwriteLines("mine", "/workspace/out/made-by-run.txt", sep = "")',
};

/**
 * A shared folder with more files than the after-run scan looks at must not hide what a run makes in
 * /workspace: shared folders are left out of the scan, so the run's own file is reported and kept.
 */
describe.each(ISOLATION_LEVELS)('a large shared folder and the files a run makes (%s isolation)', (isolation) => {
  let sp: TestSandpit;
  let root: string;
  beforeAll(async () => {
    sp = await startTestSandpit({ defaultIsolation: isolation });
    root = await mkdtemp(join(tmpdir(), 'sandpit-big-share-'));
    const big = join(root, 'big');
    await mkdir(big);
    // spread over folders as real trees are (and a few at the top, sorted before the workspace's own files)
    for (let d = 0; d < 51; d++) {
      const dir = join(big, `d${String(d).padStart(2, '0')}`);
      await mkdir(dir);
      await Promise.all(Array.from({ length: SHARED_FILES / 51 }, (_, i) => writeFile(join(dir, `f${i}.txt`), 'x')));
    }
  }, 180_000);
  afterAll(async () => {
    await sp?.cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.each(Object.keys(MAKE_FILE) as Array<keyof typeof MAKE_FILE>)(
    `%s: a run with a ${SHARED_FILES}-file folder shared reports and keeps the file it made in /workspace`,
    async (language) => {
      const { id } = await newSession(sp, { language });
      // at /workspace/shared/big: walked before /workspace/out in the scan's order, were it walked at all
      const info = await call(
        sp.api,
        'sessions.addFolder',
        { sessionId: id, folder: { hostPath: join(root, 'big') } },
        PANEL,
      );
      expect(info.folders.map((f) => f.mountPath)).toEqual(['/workspace/shared/big']);
      const r = await sp.sessions.session(id).execute(MAKE_FILE[language]);
      expect(r.status).toBe('ok');
      expect(r.files).toEqual([{ path: 'out/made-by-run.txt', size: 4 }]);
      expect(r.artifacts.map((a) => a.path)).toEqual(['out/made-by-run.txt']);
    },
    120_000,
  );
});
