import { randomBytes } from 'node:crypto';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { ListeningPort, PreviewInfo } from '../../shared/domain/preview';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../log';
import type { Session } from '../sessions/session';
import { endReason } from '../sessions/session-processes';
import type { ProcessManager } from '../sessions/session-processes';
import { newId } from '../util/ids';
import { forwarderCommand } from './forwarders';
import { parseListeningPorts } from './listening-ports';
import { PREVIEW_TOKEN_PARAM, PreviewServer } from './preview-server';
import { ExecTunnel } from './exec-tunnel';
import { SessionTunnel, nothingListens } from './session-tunnel';

const FORWARDER_HELLO_MS = 15_000;
const POLL_MS = 250;

interface Preview {
  info: PreviewInfo;
  server: PreviewServer;
  owner: string | undefined;
}

interface SessionPreviews {
  session: Session;
  /** The socket tunnel (the session's agent folder is shared with the host), or else a connection per exec. */
  tunnel?: SessionTunnel;
  exec?: ExecTunnel;
  /** The forwarder process of each previewed port. */
  forwarders: Map<number, string>;
}

export interface OpenPreview {
  port: number;
  path?: string;
  waitMs: number;
  openedBy: string;
}

/**
 * Previews of what a sandbox serves (preview_port): each one an HTTP server on 127.0.0.1 with a port of its own
 * and a capability of its own, reaching the app's port inside the sandbox through the session's tunnel (the
 * sandbox keeps network "none"). A preview ends with its session, or when its app stops listening, and says so.
 */
export class PreviewManager {
  private readonly previews = new Map<string, Preview>();
  private readonly sessions = new Map<string, SessionPreviews>();

  constructor(
    private readonly bus: EventBus,
    private readonly processes: ProcessManager,
    private readonly log: Logger,
  ) {
    bus.on('session.updated', (info) => {
      const reason = endReason(info.state);
      if (reason) void this.endSession(info.id, reason);
    });
    bus.on('session.removed', ({ sessionId }) => void this.endSession(sessionId, 'its session was stopped'));
    bus.on('process.updated', (p) => {
      if (p.state !== 'running') void this.checkStillListening(p.sessionId);
    });
  }

  /** The TCP ports something listens on inside the session's sandbox (a paused session resumes first). */
  async ports(session: Session): Promise<ListeningPort[]> {
    if (session.state === 'paused') await session.withSandbox('Resuming the session', async () => undefined);
    const r = await session.runtime.sandbox.exec(['cat', '/proc/net/tcp', '/proc/net/tcp6'], {
      timeoutMs: 10_000,
      maxOutputBytes: 1024 * 1024,
    });
    return parseListeningPorts(r.stdout);
  }

  async open(session: Session, request: OpenPreview): Promise<PreviewInfo> {
    const { port } = request;
    const deadline = Date.now() + request.waitMs;
    while (!(await this.ports(session)).some((p) => p.port === port)) {
      if (Date.now() >= deadline) throw nothingListens(port);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const state = await this.sessionState(session);
    const { tunnel, exec } = state;
    if (tunnel) await this.ensureForwarder(session, state, tunnel, port);
    const path = request.path ? (request.path.startsWith('/') ? request.path : `/${request.path}`) : '/';
    const token = randomBytes(32).toString('base64url');
    const server = new PreviewServer({
      token,
      open: () => (tunnel ? tunnel.open(port) : exec!.open(port)),
      log: this.log,
    });
    await server.listen();
    const id = newId('prv', 10);
    const url = new URL(path, server.origin);
    url.searchParams.set(PREVIEW_TOKEN_PARAM, token);
    const preview: Preview = {
      server,
      owner: session.identity.owner,
      info: {
        id,
        sessionId: session.id,
        port,
        path,
        url: url.toString(),
        origin: server.origin,
        state: 'open',
        openedAt: new Date().toISOString(),
        openedBy: request.openedBy,
      },
    };
    this.previews.set(id, preview);
    this.bus.emit('preview.updated', preview.info);
    this.log.info('opened a preview', { sessionId: session.id, previewId: id, port, origin: server.origin });
    return preview.info;
  }

  /** Oldest first; `visible` says which a caller may see (default: all). */
  list(visible?: (sessionId: string, owner: string | undefined) => boolean): PreviewInfo[] {
    return [...this.previews.values()].filter((p) => !visible || visible(p.info.sessionId, p.owner)).map((p) => p.info);
  }

  get(id: string): { info: PreviewInfo; owner: string | undefined } {
    const p = this.previews.get(id);
    if (!p) throw new SandpitError('INVALID_INPUT', `There is no preview ${id}.`);
    return { info: p.info, owner: p.owner };
  }

  /** Stops a preview: its server closes (its port answers no more); its app goes on. */
  async stop(id: string, reason: string): Promise<PreviewInfo> {
    const p = this.previews.get(id);
    if (!p) throw new SandpitError('INVALID_INPUT', `There is no preview ${id}.`);
    this.end(p, reason);
    await p.server.close();
    await this.dropUnusedForwarder(p.info.sessionId, p.info.port);
    return p.info;
  }

  async shutdown(): Promise<void> {
    for (const p of this.previews.values()) {
      this.end(p, 'Sandpit quit');
      await p.server.close().catch(() => undefined);
    }
    for (const s of this.sessions.values()) await s.tunnel?.close();
    this.sessions.clear();
  }

  private async sessionState(session: Session): Promise<SessionPreviews> {
    const existing = this.sessions.get(session.id);
    if (existing) return existing;
    const where = session.runtime.sandbox.tunnelSocket?.('preview-tunnel.sock');
    if (!where) {
      // No folder shared with the host (gVisor, an engine elsewhere): one exec per connection carries it.
      const state: SessionPreviews = {
        session,
        exec: new ExecTunnel(session, this.log),
        forwarders: new Map(),
      };
      this.sessions.set(session.id, state);
      return state;
    }
    const tunnel = new SessionTunnel(where.hostPath, where.insidePath, where.uid, this.log);
    await tunnel.listen();
    const state: SessionPreviews = { session, tunnel, forwarders: new Map() };
    this.sessions.set(session.id, state);
    return state;
  }

  private async ensureForwarder(
    session: Session,
    state: SessionPreviews,
    tunnel: SessionTunnel,
    port: number,
  ): Promise<void> {
    if (tunnel.hasForwarder(port)) return;
    const command = forwarderCommand(tunnel.insidePath, port, tunnel.forwarderSecret);
    const forwarder = await this.processes.start(session, { command, name: `preview of port ${port}`, hidden: true });
    state.forwarders.set(port, forwarder.id);
    this.processes.onEnd(forwarder.id, (info, tail) => {
      if (state.forwarders.get(port) === forwarder.id) state.forwarders.delete(port);
      tunnel.dropPort(port);
      if (info.state === 'exited')
        this.log.warn('a preview forwarder ended', {
          sessionId: session.id,
          port,
          exitCode: info.exitCode,
          tail: tail.slice(-2_000),
        });
      for (const p of this.previews.values())
        if (p.info.sessionId === session.id && p.info.port === port)
          this.end(p, info.stoppedBy ?? 'its connection into the sandbox ended');
    });
    if (!(await tunnel.waitForForwarder(port, FORWARDER_HELLO_MS))) {
      await this.processes.stop(forwarder.id, 'it did not connect').catch(() => undefined);
      throw new SandpitError(
        'EXEC_TIMEOUT',
        `The preview of port ${port} could not connect into the sandbox within 15 seconds.`,
      );
    }
  }

  private async dropUnusedForwarder(sessionId: string, port: number): Promise<void> {
    if (
      [...this.previews.values()].some(
        (p) => p.info.sessionId === sessionId && p.info.port === port && p.info.state === 'open',
      )
    )
      return;
    const state = this.sessions.get(sessionId);
    const forwarder = state?.forwarders.get(port);
    if (!state || !forwarder) return;
    state.forwarders.delete(port);
    state.tunnel?.dropPort(port);
    await this.processes.stop(forwarder, 'its preview was stopped').catch(() => undefined);
  }

  /** A process of the session ended: previews whose port nobody listens on any more end, saying so. */
  private async checkStillListening(sessionId: string): Promise<void> {
    const state = this.sessions.get(sessionId);
    const open = [...this.previews.values()].filter((p) => p.info.sessionId === sessionId && p.info.state === 'open');
    if (!state || open.length === 0 || (state.session.state !== 'ready' && state.session.state !== 'busy')) return;
    try {
      const listening = new Set((await this.ports(state.session)).map((p) => p.port));
      for (const p of open) {
        if (listening.has(p.info.port)) continue;
        this.end(p, `nothing listens on port ${p.info.port} any more (its app stopped)`);
        await this.dropUnusedForwarder(sessionId, p.info.port);
      }
    } catch (error) {
      this.log.warn('could not read the ports a sandbox listens on', { sessionId, error: toErrorBody(error).message });
    }
  }

  private end(p: Preview, reason: string): void {
    if (p.info.state === 'ended') return;
    p.server.end(reason);
    p.info = { ...p.info, state: 'ended', endedAt: new Date().toISOString(), endedBy: reason };
    this.bus.emit('preview.updated', p.info);
    this.log.info('a preview ended', { sessionId: p.info.sessionId, previewId: p.info.id, reason });
  }

  private async endSession(sessionId: string, reason: string): Promise<void> {
    for (const p of this.previews.values()) if (p.info.sessionId === sessionId) this.end(p, reason);
    const state = this.sessions.get(sessionId);
    if (!state) return;
    this.sessions.delete(sessionId);
    await state.tunnel
      ?.close()
      .catch((error: unknown) =>
        this.log.warn('could not close a preview tunnel', { error: toErrorBody(error).message }),
      );
  }
}
