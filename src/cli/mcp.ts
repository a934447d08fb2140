import { resolveHome } from '../core/home';
import { createLogger } from '../core/log';
import { findRunningInstance } from './find-instance';
import { protectStdout } from './stdout-guard';

/** After shutting down, leftover handles (sockets kept alive, timers) get this long before the process exits anyway. */
const EXIT_GRACE_MS = 2_000;

/**
 * `sandpit mcp`: MCP on stdin/stdout. Bridges to the Sandpit serving $SANDPIT_HOME when one answers,
 * else hosts the core in-process. Nothing but JSON-RPC ever reaches stdout.
 */
export async function runMcp(): Promise<number> {
  const stdout = protectStdout();
  const log = createLogger({ app: 'sandpit', component: 'mcp' });
  const home = resolveHome();
  const instance = await findRunningInstance(home);
  // Only the path taken is loaded: each must answer `initialize` at once.
  if (instance) await (await import('./mcp-bridge')).runMcpBridge(instance, stdout, log, () => findRunningInstance(home));
  else await (await import('./mcp-host')).hostMcpInProcess(stdout);
  setTimeout(() => process.exit(process.exitCode ?? 0), EXIT_GRACE_MS).unref();
  return 0;
}
