import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';
import { newSession } from '../../test-support/sessions';

describe('many runs at once', () => {
  let sp: TestSandpit;
  beforeAll(async () => {
    sp = await startTestSandpit({ maxConcurrentRuns: 4 });
  });
  afterAll(async () => sp?.cleanup());

  it('50 runs over 10 sessions in parallel: no cross-talk, order kept per session', async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, () => newSession(sp, {}).then((s) => s.id)));
    await Promise.all(ids.map((id) => sp.sessions.session(id).execute(`seen = []\nme = ${JSON.stringify(id)}`)));
    const runs = ids.flatMap((id) =>
      Array.from({ length: 5 }, (_, n) => sp.sessions.session(id).execute(`import time, random\ntime.sleep(random.random() / 20)\nseen.append(${n})\nprint(me, ${n})\n(me, list(seen))`)),
    );
    const results = await Promise.all(runs);
    for (const [i, r] of results.entries()) {
      const id = ids[Math.floor(i / 5)]!;
      const n = i % 5;
      expect(r.status).toBe('ok');
      expect(r.sessionId).toBe(id);
      expect(r.stdout).toBe(`${id} ${n}\n`);
      expect(r.result).toBe(`('${id}', [${Array.from({ length: n + 1 }, (_, k) => k).join(', ')}])`);
    }
  });
});
