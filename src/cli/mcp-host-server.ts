import { toErrorBody } from '../shared/api/errors';
import { APPROVAL_ENV, ASSISTANT_ENV, assistantIdOf } from '../shared/domain/assistant-tag';
import { approvalPolicySchema } from '../shared/domain/approval';
import { deferredHandlers } from '../core/api/deferred-handlers';
import { initializeRefusal } from '../core/mcp/initialize-refusal';
import { clientNameOf, createMcpServer } from '../core/mcp/create-mcp-server';
import { runOwnerKey } from '../core/mcp/run-owner';
import type { SandpitMcpServer } from '../core/mcp/create-mcp-server';
import { withTimeout } from '../core/util/with-timeout';
import type { EarlyAnswerTransport } from './early-answer-transport';
import type { HostedCore } from './mcp-host-core';
import { untilStdioEnd, whileShuttingDown } from './until-stdio-end';

const DISPOSE_TIMEOUT_MS = 30_000;

/**
 * `sandpit mcp` with no Sandpit running, once the MCP server may load (mcp-host.ts has answered
 * `initialize` already, and started the core: mcp-host-core.ts): hosts the core in this process and speaks
 * MCP on `transport` (stdin and the guarded stdout). Calls that need the core wait for it. When the client
 * goes away (`ended`) the core is disposed: sessions stopped, containers removed.
 */
export async function serveMcpInProcess(transport: EarlyAnswerTransport, ended: Promise<string>, hosted: HostedCore): Promise<void> {
  const { core, bus, clients, logger } = hosted;
  const log = logger.child({ component: 'mcp-stdio' });
  const principal = `stdio:${process.pid}`;
  // Its background runs outlive this process (their records are in the data folder): the same client started again
  // on the same data folder owns them — the person started both — while another client name does not.
  const runOwner = (): string => runOwnerKey('stdio', clientNameOf(mcp));
  // The approval policy this assistant's own configuration asks for, at least (never looser than the settings).
  const approvalFloor = approvalPolicySchema.safeParse(process.env[APPROVAL_ENV]).data;
  const mcp: SandpitMcpServer = createMcpServer({
    sandpit: { api: deferredHandlers(core.then((sandpit) => sandpit.api)), bus, log: logger, clients },
    context: () => ({ transport: 'mcp-stdio', client: clientNameOf(mcp), principal, runOwner: runOwner(), ...(approvalFloor ? { approvalFloor } : {}) }),
  });
  let untrack: (() => void) | undefined;
  mcp.server.server.oninitialized = () => {
    const assistant = assistantIdOf(process.env[ASSISTANT_ENV]);
    untrack ??= clients.add({ name: clientNameOf(mcp) ?? 'unnamed client', transport: 'mcp-stdio', ...(assistant ? { assistant } : {}) });
  };
  mcp.server.server.onclose = () => untrack?.();
  transport.onerror = (error) => log.warn('stdio transport error', { error: error.message });
  transport.refuse = initializeRefusal;
  try {
    await mcp.server.connect(transport);
    const reason = await untilStdioEnd(ended);
    log.info('MCP client gone; shutting down', { reason });
  } finally {
    await whileShuttingDown(async () => {
      await mcp.close().catch(() => undefined);
      const sandpit = await core.catch(() => undefined);
      if (!sandpit) return;
      await withTimeout(sandpit.dispose(), DISPOSE_TIMEOUT_MS, 'Stopping the sessions').catch((error: unknown) =>
        log.warn('could not dispose the core cleanly', { error: toErrorBody(error).message }),
      );
    });
  }
}
