import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus';
import { silentLogger } from '../log';
import { ApprovalQueue } from './approval-queue';
import { GRANTS_FILE, GrantStore } from './grant-store';

const OWNER = 'token:0123456789abcdef\u0000claude-code';

describe('"Approve for this session" kept in the data folder', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'sandpit-grants-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  /** A queue as a Sandpit starting on `home` makes it, with these sessions listed again (kept ones). */
  async function startQueue(sessions: string[]): Promise<ApprovalQueue> {
    const queue = new ApprovalQueue(new EventBus(), silentLogger, new GrantStore(home, silentLogger));
    await queue.restoreGrants((id) => sessions.includes(id));
    return queue;
  }

  it('a kept session\'s grant holds after a restart for the same assistant (same token and name), not for anyone else', async () => {
    const first = await startQueue([]);
    first.grantSession('mcp:first-session', 'ses-kept', 'claude-code', OWNER);
    first.grantSession('mcp:first-session', 'ses-gone', 'claude-code', OWNER);
    await first.flushGrants();

    const second = await startQueue(['ses-kept']);
    // A new MCP session of the same assistant after the restart.
    expect(second.grantedForSession('mcp:second-session', 'ses-kept', OWNER)).toBe(true);
    expect(second.sessionGrants('ses-kept').map((g) => g.client)).toEqual(['claude-code']);
    // Another name, or the same name with another token, is asked again; a session that did not come back has no grant.
    expect(second.grantedForSession('mcp:third', 'ses-kept', 'token:0123456789abcdef\u0000cursor')).toBe(false);
    expect(second.grantedForSession('mcp:third', 'ses-kept', 'token:ffffffffffffffff\u0000claude-code')).toBe(false);
    expect(second.grantedForSession('mcp:third', 'ses-kept', undefined)).toBe(false);
    expect(second.grantedForSession('mcp:second-session', 'ses-gone', OWNER)).toBe(false);
    await second.flushGrants();
    const onDisk = JSON.parse(await readFile(join(home, GRANTS_FILE), 'utf8')) as { grants: Array<{ sessionId: string }> };
    expect(onDisk.grants.map((g) => g.sessionId)).toEqual(['ses-kept']);
  });

  it('while Sandpit runs, a grant is its MCP session\'s: a reconnect of the same assistant is asked again', async () => {
    const queue = await startQueue([]);
    queue.grantSession('mcp:one', 'ses-1', 'claude-code', OWNER);
    expect(queue.grantedForSession('mcp:one', 'ses-1', OWNER)).toBe(true);
    expect(queue.grantedForSession('mcp:two', 'ses-1', OWNER)).toBe(false);
    // The grant's write to the data folder finishes before the folder is removed.
    await queue.flushGrants();
  });

  it('taking a grant back, or the session ending, takes it off the disk too', async () => {
    const first = await startQueue([]);
    first.grantSession('mcp:a', 'ses-kept', 'claude-code', OWNER);
    first.grantSession('mcp:b', 'ses-kept', 'cursor', 'token:0123456789abcdef\u0000cursor');
    first.grantSession('mcp:a', 'ses-other', 'claude-code', OWNER);
    expect(first.revokeSessionGrant('ses-kept', 'cursor')).toBe(1);
    first.forgetSession('ses-other');
    await first.flushGrants();
    const second = await startQueue(['ses-kept', 'ses-other']);
    expect(second.sessionGrants('ses-kept').map((g) => g.client)).toEqual(['claude-code']);
    expect(second.sessionGrants('ses-other')).toEqual([]);
    await second.flushGrants(); // what the second queue writes lands before the folder is removed
  });

  it('a file that does not parse, or entries that are not grants, grant nothing', async () => {
    await writeFile(join(home, GRANTS_FILE), '{ not json');
    expect(await new GrantStore(home, silentLogger).load()).toEqual([]);
    const good = { sessionId: 'ses-kept', principal: 'mcp:x', owner: OWNER, client: 'claude-code', grantedAt: '2026-12-06T10:00:00.000Z' };
    await writeFile(
      join(home, GRANTS_FILE),
      JSON.stringify({
        version: 1,
        grants: [
          good,
          { ...good, sessionId: '../../etc' },
          { ...good, owner: 'not an owner/with a slash\u0000x' },
          { ...good, client: '' },
          { ...good, grantedAt: 'yesterday' },
          { ...good, extra: 'field' },
          'ses-kept',
        ],
      }),
    );
    expect(await new GrantStore(home, silentLogger).load()).toEqual([good]);
    await writeFile(join(home, GRANTS_FILE), JSON.stringify({ version: 2, grants: [good] }));
    expect(await new GrantStore(home, silentLogger).load()).toEqual([]);
  });

  it('nothing is written over the file before it was read back (an engine not up yet keeps the grants for later)', async () => {
    const good = { sessionId: 'ses-kept', principal: 'mcp:x', owner: OWNER, client: 'claude-code', grantedAt: '2026-12-06T10:00:00.000Z' };
    await writeFile(join(home, GRANTS_FILE), JSON.stringify({ version: 1, grants: [good] }));
    const queue = new ApprovalQueue(new EventBus(), silentLogger, new GrantStore(home, silentLogger));
    queue.forgetSession('ses-other');
    queue.grantSession('mcp:y', 'ses-new', 'cursor');
    await queue.flushGrants();
    expect(JSON.parse(await readFile(join(home, GRANTS_FILE), 'utf8'))).toEqual({ version: 1, grants: [good] });
    await queue.restoreGrants((id) => id === 'ses-kept' || id === 'ses-new');
    await queue.flushGrants();
    expect((JSON.parse(await readFile(join(home, GRANTS_FILE), 'utf8')) as { grants: Array<{ client: string }> }).grants.map((g) => g.client)).toEqual(['claude-code', 'cursor']);
  });
});
