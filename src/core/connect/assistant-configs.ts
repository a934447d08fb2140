import { TOKEN_PLACEHOLDER } from '../../shared/domain/connect';
import type { ConnectInfo, StdioCommand } from '../../shared/domain/connect';

const AUTHORIZATION = `Bearer ${TOKEN_PLACEHOLDER}`;

/** A word for a POSIX shell: as is when safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function stdioEntry(stdio: StdioCommand): Record<string, unknown> {
  return { command: stdio.command, args: stdio.args, ...(stdio.env ? { env: stdio.env } : {}) };
}

/**
 * Copy-paste configuration for each assistant: stdio runs `sandpit mcp` (which bridges to this
 * Sandpit while it runs, so every run shows in the panel); HTTP talks to `/mcp` with the bearer token
 * (written as TOKEN_PLACEHOLDER, which the panel fills in once the person reveals the token).
 */
export function assistantConfigs(stdio: StdioCommand, mcpUrl: string): ConnectInfo['configs'] {
  const envFlags = Object.entries(stdio.env ?? {}).map(([key, value]) => `--env ${shellQuote(`${key}=${value}`)} `);
  return {
    claudeDesktop: {
      where:
        'Claude Desktop: "Connect an assistant in one click" on the Connect screen writes this into claude_desktop_config.json for you. By hand: Settings → Developer → Edit Config opens that file; if it is empty, this is the whole file; if it already lists servers, copy only the "sandpit": { … } part into its "mcpServers" (with a comma after the server before it). Save, and restart Claude Desktop.',
      stdio: json({ mcpServers: { sandpit: stdioEntry(stdio) } }),
    },
    cursor: {
      where:
        'Cursor: ~/.cursor/mcp.json (every project) or .cursor/mcp.json in one project. If the file is empty, this is the whole file; if it already lists servers, copy only the "sandpit": { … } part into its "mcpServers" (with a comma after the server before it).',
      stdio: json({ mcpServers: { sandpit: stdioEntry(stdio) } }),
      http: json({ mcpServers: { sandpit: { url: mcpUrl, headers: { Authorization: AUTHORIZATION } } } }),
    },
    vscode: {
      where:
        'VS Code: .vscode/mcp.json in your project (or the command "MCP: Open User Configuration"). If the file is empty, this is the whole file; if it already lists servers, copy only the "sandpit": { … } part into its "servers" (with a comma after the server before it).',
      stdio: json({ servers: { sandpit: { type: 'stdio', ...stdioEntry(stdio) } } }),
      http: json({ servers: { sandpit: { type: 'http', url: mcpUrl, headers: { Authorization: AUTHORIZATION } } } }),
    },
    claudeCode: {
      where: 'Claude Code: run this once in a terminal.',
      stdio: `claude mcp add --transport stdio ${envFlags.join('')}sandpit -- ${[stdio.command, ...stdio.args].map(shellQuote).join(' ')}`,
      http: `claude mcp add --transport http sandpit ${shellQuote(mcpUrl)} --header ${shellQuote(`Authorization: ${AUTHORIZATION}`)}`,
    },
  };
}
