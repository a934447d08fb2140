import type { MethodOutput } from '../../shared/api/contract';
import type { Language } from '../../shared/domain/languages';
import type { ApprovalQueue } from '../approvals/approval-queue';
import type { AuditStore } from '../audit/audit-store';
import type { SandpitConfig } from '../config';
import type { EgressLog } from '../egress/egress-log';
import type { SecretStore } from '../egress/secret-store';
import type { EnvironmentServices } from '../session-opening/environment-services';
import type { EventBus } from '../events/event-bus';
import type { ArtifactStore } from '../files/artifact-store';
import type { FolderSharing } from '../folders/folder-sharing';
import type { EngineMonitor } from '../sessions/engine-monitor';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/session-manager';
import type { ProcessManager } from '../sessions/session-processes';
import type { PreviewManager } from '../previews/preview-manager';
import type { SettingsStore } from '../settings/settings-store';
import type { CallContext } from './api-types';
import type { ConnectServices } from './connect-handlers';

/** What the API is made of: the core's services (never an engine client: sandboxes are reached through Sessions). */
export interface SandpitApiDeps {
  config: SandpitConfig;
  sessions: SessionManager;
  engine: EngineMonitor;
  artifacts: ArtifactStore;
  bus: EventBus;
  environments: EnvironmentServices;
  audit: AuditStore;
  settings: SettingsStore;
  approvals: ApprovalQueue;
  connect: ConnectServices;
  /** The hosts sessions tried to reach through the egress proxy (in memory). */
  egressLog: EgressLog;
  /** The Docker engines this machine points at, tried now (for Settings): provided by the composition root. */
  engines: { candidates(): Promise<MethodOutput<'engine.candidates'>['engines']> };
  /** Folders of this computer for sessions: what they are checked against (provided by the composition root). */
  folders: FolderSharing;
  /** Secrets a sandbox can use but never read (issue 18); absent: none. */
  secrets?: SecretStore;
  /** Processes that keep running beyond their call (start_process). */
  processes: ProcessManager;
  /** Previews of what sandboxes serve (preview_port). */
  previews: PreviewManager;
}

/** What the per-area handler files receive: the deps plus session resolution with ownership. */
export interface HandlerKit extends SandpitApiDeps {
  /** The session a call targets: the given id (if the caller may use it) or the caller's default session. */
  target(sessionId: string | undefined, context: CallContext, language?: Language): Promise<Session>;
}
