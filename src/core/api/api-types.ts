import type { MethodName, MethodOutput, MethodParsedInput } from '../../shared/api/contract';
import type { CallTransport } from '../../shared/domain/caller';
import type { ApprovalPolicy, ChatAsk } from '../../shared/domain/approval';
import type { StreamName } from '../../shared/domain/execution';

/** Who is calling: used for default sessions, ownership, approvals and the audit log. */
export interface CallContext {
  transport: CallTransport;
  /** The client's own name (MCP clientInfo.name, "panel", "rest"). */
  client?: string;
  /**
   * Who owns the sandboxes this caller makes and may touch: an MCP session, a token. Undefined is
   * the panel, which sees and manages every session.
   */
  principal?: string;
  /**
   * A policy the client's own configuration asks for (SANDPIT_APPROVAL, e.g. a Claude Desktop extension's
   * setting): the stricter of it and the settings' policy applies, so it can never loosen them.
   */
  approvalFloor?: ApprovalPolicy;
  /** The caller gave up (e.g. its MCP request was cancelled): a call still waiting for approval is withdrawn. */
  signal?: AbortSignal;
  /** Told when the call starts (a plain message) and stops (undefined) waiting for the person, e.g. for MCP progress. */
  onWaiting?(what: string | undefined): void;
  /** Told how a long preparation goes (an environment building before a session starts), e.g. for MCP progress. */
  onProgress?(what: string, step?: number, steps?: number): void;
  /**
   * run_file only, set by the approval gate: the file's text the person read and approved. The run uses
   * it instead of reading the file again, so a write after the approval cannot change what runs.
   */
  approvedFileContent?: string;
  /** A run of a replay (audit.replay): the audit row of the original run it repeats, recorded as `replay_of`. */
  replayOf?: number;
  /** The audit row of this call, once it is opened (an approval request names it). */
  auditId?: number;
  /** The caller can be asked in its chat (an MCP client with form elicitation): approval questions go there too. */
  askInChat?: ChatAsk;
  /**
   * Background runs (issue 23): who owns the runs this caller starts across reconnects — an MCP client's name with
   * the token it connected with (a new MCP session of the same client keeps it). Undefined: the principal.
   */
  runOwner?: string;
  /** Told which session a run, command or file run goes to, once it is resolved (a background run shows it). */
  onSession?(sessionId: string): void;
  /** Told when a run, command or file run starts, after what was queued ahead of it on its session. */
  onStarted?(): void;
  /** The call is a background run (issue 23): its run id, which its audit row carries. */
  backgroundRun?: string;
  /** A command's output as it comes (code runs tell theirs on the bus: execution.output). */
  onOutput?: (stream: StreamName, text: string) => void;
}

export type Handler<M extends MethodName> = (input: MethodParsedInput<M>, context: CallContext) => Promise<MethodOutput<M>>;

export type Handlers = { [M in MethodName]: Handler<M> };

/** The panel (IPC, or the web panel over /api) calls without a principal; every other caller has one. */
export function isPanel(context: CallContext): boolean {
  return context.principal === undefined;
}
