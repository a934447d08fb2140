import { secretHandlers } from './secret-handlers';
import { SandpitError } from '../../shared/api/errors';
import type { Language } from '../../shared/domain/languages';
import type { Handlers } from './api-types';
import { approvalHandlers } from './approval-handlers';
import { auditHandlers } from './audit-handlers';
import { audited } from './audited';
import type { AuditDeps } from './audited';
import { connectHandlers } from './connect-handlers';
import { DefaultSessions } from '../session-opening/default-sessions';
import { environmentHandlers } from './environment-handlers';
import { findEnvironment } from '../environments/environment-lookup';
import { fileHandlers } from './file-handlers';
import type { HandlerKit, SandpitApiDeps } from './handler-kit';
import { METHOD_POLICY } from './method-policy';
import { notebookHandlers } from './notebook-handlers';
import { packageHandlers } from './package-handlers';
import { ReplayRunner } from './replay-runner';
import { runHandlers } from './run-handlers';
import { BackgroundRunStore } from './background-run-store';
import { BackgroundRuns, DEFAULT_BACKGROUND_MAX_MINUTES } from './background-runs';
import { backgroundRunHandlers } from './background-run-handlers';
import { processHandlers } from './process-handlers';
import { previewHandlers } from './preview-handlers';
import { processEndFinish } from '../audit/audit-outcome';
import type { ProcessInfo } from '../../shared/domain/process';
import { sessionHandlers } from './session-handlers';
import { folderHandlers } from './folder-handlers';
import { changeHandlers } from './change-handlers';
import { openSession } from '../session-opening/session-factory';
import { settingsHandlers } from './settings-handlers';
import { snapshotHandlers } from './snapshot-handlers';
import { withPolicy } from './with-policy';
import { DEFAULT_LANGUAGE } from '../../shared/domain/languages';

/**
 * The one implementation of the contract. The panel (IPC, /api), REST and the MCP tools all call
 * these handlers, under the one policy table; none has a second code path.
 */
export function createSandpitApi(deps: SandpitApiDeps): Handlers {
  const { sessions, engine, artifacts, environments } = deps;
  const find = (sessionId: string): ReturnType<typeof sessions.session> | undefined => {
    try {
      return sessions.session(sessionId);
    } catch {
      return undefined;
    }
  };
  const defaults = new DefaultSessions(
    async (principal, language, client) =>
      (await openSession(sessions, environments, { language, client, owner: principal === PANEL_DEFAULTS ? undefined : principal, sharing: deps.folders })).session,
    find,
    deps.bus,
  );
  const defaultKey = (principal: string | undefined): string => principal ?? PANEL_DEFAULTS;
  const kit: HandlerKit = {
    ...deps,
    target: async (sessionId, context, language) =>
      sessionId === undefined
        ? defaults.resolve(defaultKey(context.principal), language ?? DEFAULT_LANGUAGE, context.client)
        : sessions.access(sessionId, context.principal),
  };
  const audit: AuditDeps = {
    audit: deps.audit,
    bus: deps.bus,
    defaultSession: (context, language) => defaults.current(defaultKey(context.principal), language ?? DEFAULT_LANGUAGE),
    environmentOf: (id) => {
      const info = find(id)?.info();
      if (!info) return undefined;
      const name = info.environmentName ?? info.environment;
      // An open network is an explicit choice: the audit log says so next to the environment.
      return info.network === 'open' ? `${name ?? 'custom'} (open network)` : name;
    },
    sandboxOf: (id) => {
      const session = find(id);
      if (!session) return undefined;
      const info = session.info();
      return {
        isolation: info.isolation,
        runtime: session.runtime.engineRuntime || undefined,
        network: info.network,
        // What a replay starts from (audit.replay).
        language: info.language,
        image: info.image,
        ...(info.environment ? { environmentId: info.environment } : {}),
        limits: info.limits,
        sessionName: info.name.slice(0, 200),
        // Secrets (issue 18): the names the session could use, never a value.
        ...(info.secrets && info.secrets.length > 0 ? { secrets: info.secrets.map((s) => s.name) } : {}),
      };
    },
    foldersOf: (id) => find(id)?.folders,
    completeLater: (method, result, complete) => {
      if (method !== 'processes.start') return false;
      deps.processes.onEnd((result as ProcessInfo).id, (info, tail) => complete(processEndFinish(info, tail)));
      return true;
    },
    log: sessions.logger,
  };
  // Replayed runs (Activity's replays, a fork's replay: true) call the policy-wrapped handlers (made below):
  // audited and approval-checked like every other call.
  const wrapped: { handlers?: Handlers } = {};
  const policyWrapped = (): Handlers => {
    if (!wrapped.handlers) throw new SandpitError('INTERNAL', 'The API is not ready yet.');
    return wrapped.handlers;
  };
  const replays = new ReplayRunner(kit, policyWrapped);
  // Background runs call the policy-wrapped run handlers: asked about, audited and queued like any run.
  const runs = new BackgroundRuns({
    bus: deps.bus,
    sessions,
    api: policyWrapped,
    maxMinutes: () => deps.settings.current.backgroundRunMaxMinutes ?? DEFAULT_BACKGROUND_MAX_MINUTES,
    store: new BackgroundRunStore(deps.config.home, sessions.logger.child({ component: 'background-run-store' })),
    log: sessions.logger.child({ component: 'background-runs' }),
  });
  const handlers: Handlers = {
    'engine.status': async () => (engine.current.state === 'up' ? engine.current : engine.check()),
    'engine.candidates': async () => ({ engines: await deps.engines.candidates() }),
    'egress.recent': async ({ sessionId, limit }, context) => {
      if (sessionId !== undefined) sessions.access(sessionId, context.principal);
      const mine = context.principal === undefined ? undefined : new Set(sessions.listFor(context.principal).map((s) => s.id));
      return { entries: deps.egressLog.recent(limit, sessionId, (id) => mine === undefined || (id !== undefined && mine.has(id))) };
    },
    'sessions.create': async (input, context) => {
      const { session, dependencies } = await openSession(sessions, environments, {
        sharing: deps.folders,
        ...(input.environment === undefined ? {} : { environment: input.environment }),
        ...(input.language === undefined ? {} : { language: input.language }),
        ...(input.name === undefined ? {} : { name: input.name }),
        limits: input.limits,
        client: input.client ?? context.client,
        owner: context.principal,
        idleTtlMs: input.idleTimeoutMinutes === undefined ? undefined : input.idleTimeoutMinutes * 60_000,
        ...(input.keep ? { keep: true } : {}),
        ...(input.secrets?.length ? { secrets: input.secrets } : {}),
        dependencies: input.dependencies,
        onProgress: (what, step, steps) => context.onProgress?.(what, step, steps),
      });
      if (dependencies.length === 0) return session.info();
      try {
        // The install is audited like any other (the create's approval covered it).
        const installRule = METHOD_POLICY['packages.install'].audit!;
        const { results } = await audited(audit, installRule, { sessionId: session.id, packages: input.dependencies ?? [] }, context, (i) =>
          handlers['packages.install'](i, context),
        );
        const failed = results.filter((r) => !r.ok);
        if (failed.length > 0) {
          throw new SandpitError('INVALID_INPUT', `Could not install ${failed.map((f) => `${f.package} (${f.error ?? 'failed'})`).join(', ')}.`, { results });
        }
        return session.info();
      } catch (error) {
        await sessions.stop(session.id).catch(() => undefined);
        throw error;
      }
    },
    ...sessionHandlers(kit),
    ...folderHandlers(kit),
    ...runHandlers(kit, runs),
    ...backgroundRunHandlers(runs),
    ...changeHandlers(kit),
    ...processHandlers(kit, deps.processes),
    ...previewHandlers(kit, deps.previews),
    ...packageHandlers(kit),
    ...fileHandlers(kit),
    ...environmentHandlers(kit, environments),
    // A fork's replay runs through the wrapped sessions.execute: audited and approval-checked like any run.
    ...snapshotHandlers(kit, () => policyWrapped()['sessions.execute']),
    'artifacts.list': async ({ sessionId, limit }, context) => {
      if (sessionId) sessions.access(sessionId, context.principal);
      else if (context.principal !== undefined) {
        const mine = new Set(sessions.listFor(context.principal).map((s) => s.id));
        return { artifacts: (await artifacts.list({ limit: 10_000 })).filter((a) => mine.has(a.sessionId)).slice(0, limit) };
      }
      return { artifacts: await artifacts.list({ sessionId, limit }) };
    },
    'artifacts.read': async ({ sha256 }) => {
      const { artifact, content } = await artifacts.get(sha256);
      return { artifact, contentBase64: content.toString('base64') };
    },
    ...settingsHandlers(deps.settings),
    ...approvalHandlers(deps.approvals),
    ...auditHandlers(deps.audit),
    ...notebookHandlers(kit),
    'audit.replay': async ({ sessionId }, context) => replays.start(sessionId, context),
    ...connectHandlers(deps.config, deps.connect),
    ...secretHandlers(deps.secrets, environments.store, sessions),
  };
  const guarded = withPolicy(handlers, {
    audit,
    approvals: {
      queue: deps.approvals,
      settings: () => deps.settings.current.approvals,
      sessions,
      defaultSession: (principal: string, language: Language) => defaults.current(principal, language),
      environment: async (reference: string) => findEnvironment(environments.store, reference),
    },
  });
  wrapped.handlers = guarded;
  return guarded;
}

/** The key of the panel's own default sessions (the panel calls without a principal). */
const PANEL_DEFAULTS = '\u0000panel';
