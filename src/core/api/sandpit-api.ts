import type { MethodName, MethodOutput, MethodParsedInput } from '../../shared/api/contract';
import { SandpitError } from '../../shared/api/errors';
import type { NetworkPolicy } from '../../shared/domain/environment';
import type { PartialLimits } from '../../shared/domain/limits';
import type { Language } from '../../shared/domain/session';
import type { SandpitConfig } from '../config';
import type { DockerClient } from '../docker/docker-client';
import type { EngineMonitor } from '../docker/engine-monitor';
import type { ArtifactStore } from '../files/artifact-store';
import type { AuditStore } from '../audit/audit-store';
import type { SessionManager } from '../sessions/session-manager';
import type { ContainerEnv } from '../sessions/session-types';
import type { EventBus } from './event-bus';
import { parsePackageSpecs } from '../environments/package-names';
import type { ApprovalQueue } from '../approvals/approval-queue';
import type { SettingsStore } from '../settings/settings-store';
import { approvalHandlers } from './approval-handlers';
import { auditHandlers } from './audit-handlers';
import { withAudit } from './audited';
import type { AuditDeps } from './audited';
import { withApprovals } from './approved';
import { connectHandlers } from './connect-handlers';
import type { ConnectServices } from './connect-handlers';
import { DefaultSessions } from './default-sessions';
import { environmentHandlers, networkFor } from './environment-handlers';
import type { EnvironmentServices } from './environment-handlers';
import { fileHandlers } from './file-handlers';
import { packageHandlers, packageManagerFor } from './package-handlers';
import { runHandlers } from './run-handlers';
import { settingsHandlers } from './settings-handlers';

/** Who is calling: used for default sessions, ownership, approvals and the audit log. */
export interface CallContext {
  transport: 'ipc' | 'http' | 'mcp-http' | 'mcp-stdio' | 'rest' | 'internal';
  /** The client's own name (MCP clientInfo.name, "panel", "rest"). */
  client?: string;
  /**
   * Who owns the sandboxes this caller makes and may touch: an MCP session, a token. Undefined is
   * the panel, which sees and manages every session.
   */
  principal?: string;
  /** The caller gave up (e.g. its MCP request was cancelled): a call still waiting for approval is withdrawn. */
  signal?: AbortSignal;
  /** Told when the call starts (a plain message) and stops (undefined) waiting for the person, e.g. for MCP progress. */
  onWaiting?(what: string | undefined): void;
  /**
   * run_file only, set by the approval gate: the file's text the person read and approved. The run uses
   * it instead of reading the file again, so a write after the approval cannot change what runs.
   */
  approvedFileContent?: string;
}

export type Handlers = { [M in MethodName]: (input: MethodParsedInput<M>, context: CallContext) => Promise<MethodOutput<M>> };

export interface SandpitApiDeps {
  config: SandpitConfig;
  sessions: SessionManager;
  engine: EngineMonitor;
  docker: DockerClient;
  artifacts: ArtifactStore;
  bus: EventBus;
  environments: EnvironmentServices;
  audit: AuditStore;
  settings: SettingsStore;
  approvals: ApprovalQueue;
  connect: ConnectServices;
}

/** Image, language, limits and network of a new session: from its environment, when it names one. */
async function createFromEnvironment(
  input: MethodParsedInput<'sessions.create'>,
  services: EnvironmentServices,
): Promise<{
  language?: Language;
  image?: string;
  environment?: string;
  baseLimits?: PartialLimits;
  network?: string;
  networkPolicy?: NetworkPolicy;
  containerEnv?: ContainerEnv;
}> {
  if (!input.environment) return { language: input.language, image: input.image };
  const env = await services.store.get(input.environment);
  if (input.language && input.language !== env.language) {
    throw new SandpitError('INVALID_INPUT', `The environment "${env.name}" is for ${env.language}, not ${input.language}.`);
  }
  const image = await services.builder.imageFor(env.id);
  return { language: env.language, image, environment: env.id, baseLimits: env.limits, networkPolicy: env.network, ...networkFor(env.network, services) };
}

/** What the per-area handler files receive: the deps plus session resolution with ownership. */
export interface HandlerKit extends SandpitApiDeps {
  /** The session a call targets: the given id (if the caller may use it) or the caller's default session. */
  target(sessionId: string | undefined, context: CallContext, language?: Language): Promise<string>;
}

/**
 * The one implementation of the contract. The panel (IPC, /api), REST and the MCP tools all call
 * these handlers; none has a second code path.
 */
export function createSandpitApi(deps: SandpitApiDeps): Handlers {
  const { sessions, engine, artifacts } = deps;
  const defaults = new DefaultSessions(sessions, deps.bus);
  const kit: HandlerKit = {
    ...deps,
    target: async (sessionId, context, language) => {
      if (sessionId) {
        sessions.access(sessionId, context.principal);
        return sessionId;
      }
      return defaults.resolve(context.principal ?? 'panel', language ?? 'python', context.client);
    },
  };
  const audit: AuditDeps = {
    audit: deps.audit,
    bus: deps.bus,
    defaultSession: (context, language) => defaults.current(context.principal ?? 'panel', language ?? 'python'),
    environmentOf: (id) => {
      const session = sessions.listFor(undefined).find((s) => s.id === id);
      // An open network is an explicit choice: the audit log says so next to the environment.
      return session?.network === 'open' ? `${session.environment ?? 'custom'} (open network)` : session?.environment;
    },
    log: sessions.logger,
  };
  const handlers: Handlers = {
    'engine.status': async () => (engine.current.state === 'up' ? engine.current : engine.check()),
    'sessions.create': async (input, context) => {
      // Dependencies are validated before any container starts (as packages.install does).
      if (input.dependencies?.length) parsePackageSpecs(input.dependencies, packageManagerFor(input.language ?? 'python'));
      const fromEnv = await createFromEnvironment(input, deps.environments);
      return sessions.create({
        ...fromEnv,
        limits: input.limits,
        client: input.client ?? context.client,
        owner: context.principal,
        idleTtlMs: input.idleTimeoutMinutes === undefined ? undefined : input.idleTimeoutMinutes * 60_000,
        // dependencies are installed by the packages handler right after creation (see below)
      }).then(async (info) => {
        if (!input.dependencies?.length) return info;
        try {
          const { results } = await withAudit(handlers, audit)['packages.install']({ sessionId: info.id, packages: input.dependencies }, context);
          const failed = results.filter((r) => !r.ok);
          if (failed.length > 0) {
            throw new SandpitError('INVALID_INPUT', `Could not install ${failed.map((f) => `${f.package} (${f.error ?? 'failed'})`).join(', ')}.`, { results });
          }
          return sessions.get(info.id);
        } catch (error) {
          await sessions.stop(info.id).catch(() => undefined);
          throw error;
        }
      });
    },
    'sessions.list': async (_input, context) => ({ sessions: sessions.listFor(context.principal) }),
    'sessions.get': async ({ sessionId }, context) => sessions.access(sessionId, context.principal),
    'sessions.stop': async ({ sessionId }, context) => {
      sessions.access(sessionId, context.principal);
      await sessions.stop(sessionId);
      return { sessionId, stopped: true };
    },
    'sessions.restart': async ({ sessionId }, context) => {
      sessions.access(sessionId, context.principal);
      return sessions.restart(sessionId);
    },
    'sessions.interrupt': async ({ sessionId }, context) => {
      sessions.access(sessionId, context.principal);
      return { interrupted: sessions.interrupt(sessionId) };
    },
    ...runHandlers(kit),
    ...packageHandlers(kit),
    ...fileHandlers(kit),
    ...environmentHandlers(kit, deps.environments),
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
    ...connectHandlers(deps.config, deps.connect),
  };
  // Approval is the innermost wrapper: an outer one (the audit log) sees a denied call as denied.
  return withAudit(withApprovals(handlers, { queue: deps.approvals, settings: () => deps.settings.current.approvals, sessions, defaults }), audit);
}
