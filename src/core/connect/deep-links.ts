import type { AssistantId } from '../../shared/domain/assistants';
import type { StdioCommand } from '../../shared/domain/connect';

/**
 * The assistant's own "install this MCP server" link, where it has one (a second way to connect: the
 * assistant asks the person and writes its configuration itself). Cursor: a base64 JSON of the entry;
 * VS Code: the URL-encoded JSON of the entry with its name.
 */
export function deepLinkFor(id: AssistantId, name: string, stdio: StdioCommand): string | undefined {
  const entry = { command: stdio.command, args: stdio.args, ...(stdio.env ? { env: stdio.env } : {}) };
  if (id === 'cursor') {
    const config = Buffer.from(JSON.stringify(entry), 'utf8').toString('base64');
    return `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(name)}&config=${encodeURIComponent(config)}`;
  }
  if (id === 'vscode')
    return `vscode:mcp/install?${encodeURIComponent(JSON.stringify({ name, type: 'stdio', ...entry }))}`;
  return undefined;
}
