import { isDeepStrictEqual } from 'node:util';
import { toErrorBody } from '../../shared/api/errors';
import type { Limits } from '../../shared/domain/limits';
import type { Logger } from '../log';
import type { InstanceIdentity } from '../sandbox/instance-identity';
import type { SandboxDriver } from './sandbox-driver';
import type { SessionTemplate } from './session-template';
import type { HandedOverSandbox, WarmHandOver } from './warm-handover';
import type { WarmPools, WarmTemplate } from './warm-pools';

/** What a core needs to hand warm sandboxes over when it quits, and to take over what the last one left. */
export interface HandOverDeps {
  store: WarmHandOver;
  /** How long left sandboxes wait for the next core (0: nothing is left). */
  ms: number;
  /** This core (it holds what it took over, so no reaper removes it while it lives). */
  self: InstanceIdentity;
}

/** Only sandboxes with nothing of anyone's in reach are left: no network, no variables, no CA bundle (so no secrets). */
export function mayHandOver(template: SessionTemplate): boolean {
  return template.network === undefined && template.env === undefined && template.caDir === undefined;
}

/**
 * Sandpit quits: the ready sandboxes of the pools that may be handed over are let go (their channels close,
 * they keep running) and recorded for the next core; every other warm sandbox is removed. A record that cannot
 * be written removes what it would have named.
 */
export async function leaveWarmSandboxes(pools: WarmPools, deps: HandOverDeps, log: Logger): Promise<number> {
  const left = await pools.leave(mayHandOver);
  const records: HandedOverSandbox[] = [];
  const removed: SandboxDriver[] = [];
  for (const { template, session } of left) {
    const record = session.release();
    if (record.channel !== 'socket' || record.agentDir === undefined) {
      removed.push(session);
      continue;
    }
    records.push({
      sessionId: session.id,
      language: template.language,
      image: template.image,
      limits: template.limits,
      isolation: template.isolation,
      containerId: record.containerId,
      runtime: record.runtime,
      agentDir: record.agentDir,
      ...(record.workspace ? { workspace: record.workspace } : {}),
    });
  }
  try {
    await deps.store.leave(records, Date.now() + deps.ms);
  } catch (error) {
    log.warn('could not leave the warm sandboxes for the next core; they are removed', { error: toErrorBody(error).message });
    removed.push(...left.map((l) => l.session).filter((s) => !removed.includes(s)));
    records.length = 0;
  }
  await Promise.all(removed.map((s) => s.remove().catch(() => undefined)));
  if (records.length > 0) log.info('left warm sandboxes for the next core', { count: records.length, minutes: Math.round(deps.ms / 60_000) });
  return records.length;
}

/**
 * Takes over the warm sandboxes the last core of this data folder left, into the pools of the templates this core
 * warms now (the same language, image, isolation and default limits: anything else is not what a new session would
 * get, and is left to the reaper). Each is checked by the backend before anything is done with it. Those of the
 * first template (the default language's) are taken first, and `firstTaken` is told when they are: a client's
 * first call waits for them only.
 */
export async function adoptWarmSandboxes(
  current: readonly WarmTemplate[],
  defaultLimits: Limits,
  make: (sessionId: string, template: WarmTemplate) => SandboxDriver,
  adopt: (template: WarmTemplate, session: SandboxDriver) => void,
  deps: HandOverDeps,
  log: Logger,
  firstTaken: () => void = () => undefined,
): Promise<number> {
  const { sandboxes: left, done } = await deps.store.take();
  const head = current[0];
  const isFirst = (s: HandedOverSandbox): boolean => head !== undefined && s.language === head.language && s.image === head.image;
  const adoptEach = (some: readonly HandedOverSandbox[]): Promise<number> => adoptAll(some, { current, defaultLimits, make, adopt, deps, log });
  let taken = 0;
  try {
    taken = await adoptEach(left.filter(isFirst));
    firstTaken();
    taken += await adoptEach(left.filter((s) => !isFirst(s)));
  } finally {
    firstTaken();
    await done();
    await deps.store.sweep(deps.self);
  }
  if (taken > 0) log.info('took over the warm sandboxes the last core left', { count: taken });
  return taken;
}

async function adoptAll(
  left: readonly HandedOverSandbox[],
  { current, defaultLimits, make, adopt, deps, log }: {
    current: readonly WarmTemplate[];
    defaultLimits: Limits;
    make: (sessionId: string, template: WarmTemplate) => SandboxDriver;
    adopt: (template: WarmTemplate, session: SandboxDriver) => void;
    deps: HandOverDeps;
    log: Logger;
  },
): Promise<number> {
  // All at once: each is a few engine calls and a greeting, and a client's first call may be waiting for one.
  const taken = await Promise.all(
    left.map(async (sandbox): Promise<number> => {
      const template = current.find((t) => mayHandOver({ ...t, limits: defaultLimits }) && t.language === sandbox.language && t.image === sandbox.image && t.isolation === sandbox.isolation);
      if (!template || !isDeepStrictEqual(sandbox.limits, defaultLimits)) {
        log.info('a warm sandbox the last core left is not one this core would start; it is removed as a leftover', { sessionId: sandbox.sessionId });
        await deps.store.forget(sandbox.sessionId);
        return 0;
      }
      const session = make(sandbox.sessionId, template);
      try {
        await session.takeOver({ containerId: sandbox.containerId, channel: 'socket', runtime: sandbox.runtime, agentDir: sandbox.agentDir, ...(sandbox.workspace ? { workspace: sandbox.workspace } : {}) });
        await deps.store.hold(sandbox.sessionId, deps.self);
        adopt(template, session);
        return 1;
      } catch (error) {
        log.warn('could not take over a warm sandbox the last core left', { sessionId: sandbox.sessionId, error: toErrorBody(error).message });
        // Only what the backend checked as this session's is removed (a refused record names nothing it touches).
        await session.remove().catch(() => undefined);
        await deps.store.forget(sandbox.sessionId);
        return 0;
      }
    }),
  );
  return taken.reduce((a, b) => a + b, 0);
}
