import { describe, expect, it } from 'vitest';
import { TOKEN_PLACEHOLDER } from '../../shared/domain/connect';
import { assistantConfigs, shellQuote } from './assistant-configs';
import { stdioCommand } from './stdio-command';

const URL = 'http://127.0.0.1:7411/mcp';

describe('assistant configs', () => {
  const stdio = {
    command: '/opt/node 24/bin/node',
    args: ['/home/me/sandpit/bin/sandpit.mjs', 'mcp'],
    env: { SANDPIT_HOME: '/data/sandpit' },
  };
  const configs = assistantConfigs(stdio, URL);

  it('gives Claude Desktop and Cursor an mcpServers entry that starts sandpit mcp', () => {
    for (const text of [configs.claudeDesktop.stdio, configs.cursor.stdio]) {
      expect(JSON.parse(text)).toEqual({ mcpServers: { sandpit: stdio } });
    }
    expect(configs.claudeDesktop.http).toBeUndefined();
  });

  it('gives Cursor and VS Code the HTTP URL with the Authorization header (token placeholder only)', () => {
    expect(JSON.parse(configs.cursor.http!)).toEqual({
      mcpServers: { sandpit: { url: URL, headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` } } },
    });
    expect(JSON.parse(configs.vscode.http!)).toEqual({
      servers: { sandpit: { type: 'http', url: URL, headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` } } },
    });
    expect(JSON.parse(configs.vscode.stdio)).toEqual({ servers: { sandpit: { type: 'stdio', ...stdio } } });
  });

  it('gives Claude Code shell commands with safe quoting', () => {
    expect(configs.claudeCode.stdio).toBe(
      "claude mcp add --transport stdio --env SANDPIT_HOME=/data/sandpit sandpit -- '/opt/node 24/bin/node' /home/me/sandpit/bin/sandpit.mjs mcp",
    );
    expect(configs.claudeCode.http).toBe(
      `claude mcp add --transport http sandpit ${URL} --header 'Authorization: Bearer ${TOKEN_PLACEHOLDER}'`,
    );
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });

  it('runs bin/sandpit.mjs with this Node and names the data folder only when it is not the default', () => {
    const command = stdioCommand({ home: '/tmp/elsewhere', bin: '/x/bin/sandpit.mjs' });
    expect(command).toEqual({
      command: process.execPath,
      args: ['/x/bin/sandpit.mjs', 'mcp'],
      env: { SANDPIT_HOME: '/tmp/elsewhere' },
    });
    expect(stdioCommand({ home: '/tmp/elsewhere' }).args[0]).toMatch(/\/bin\/sandpit\.mjs$/);
  });
});
