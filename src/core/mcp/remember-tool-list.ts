import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * `tools/list` answered from its last answer until the list changes. The SDK converts every tool's input and
 * output schema to JSON Schema again on each list (26 tools, 77 KB: 20–50 ms of this process's one thread here,
 * which the runs of every client wait behind); the tools are fixed once registered, and every change the SDK makes
 * to them (added, removed, enabled, disabled, updated) goes through `sendToolListChanged`, which forgets the answer.
 * Call it once every tool is registered.
 */
export function rememberToolList(server: McpServer): void {
  // The SDK keeps request handlers in its protocol's map; McpServer sets this one and offers no hook around it.
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, RequestHandler> })._requestHandlers;
  const list = handlers.get('tools/list');
  if (!list) return;
  let answer: Promise<unknown> | undefined;
  handlers.set('tools/list', (request, extra) => {
    const pending = (answer ??= list(request, extra));
    // A list that failed is asked again next time.
    pending.catch(() => {
      if (answer === pending) answer = undefined;
    });
    return pending;
  });
  const changed = server.sendToolListChanged.bind(server);
  server.sendToolListChanged = (): void => {
    answer = undefined;
    changed();
  };
}
