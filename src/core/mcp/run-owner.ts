/**
 * The owner of an MCP client's background runs (issue 23): the token it connected with (its bearer principal; `stdio` for
 * `sandpit mcp` hosting the core itself, whose runs' records outlive its process) and the name it gave in initialize. A new MCP session of the same client with the same token — an
 * HTTP reconnect, or `sandpit mcp` started again and bridging to the same Sandpit — owns the same runs; another client
 * (another name, or another token) does not. The person sees and cancels every run in the panel.
 */
export function runOwnerKey(principal: string, clientName: string | undefined): string {
  return `${principal}\u0000${clientName ?? 'unnamed client'}`;
}
