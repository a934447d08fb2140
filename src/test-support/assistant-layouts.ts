/** Each assistant's real configuration file, as a person has it with other servers already in it (Linux layout). */
export const LAYOUTS = {
  'claude-desktop': {
    path: '.config/Claude/claude_desktop_config.json',
    text: '{\n  "mcpServers": {\n    "filesystem": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Desktop"]\n    }\n  },\n  "globalShortcut": "Ctrl+Space"\n}\n',
  },
  'claude-code': {
    path: '.claude.json',
    text: '{\n  "numStartups": 12,\n  "projects": {\n    "/home/me/app": { "allowedTools": [] }\n  },\n  "mcpServers": {\n    "github": { "type": "http", "url": "https://example.invalid/mcp" }\n  }\n}\n',
  },
  cursor: {
    path: '.cursor/mcp.json',
    text: '{\n    "mcpServers": {\n        "docs": { "url": "http://localhost:3001/mcp" }\n    }\n}\n',
  },
  vscode: {
    path: '.config/Code/User/mcp.json',
    text: '{\n\t// My servers (VS Code keeps comments here)\n\t"servers": {\n\t\t"memory": {\n\t\t\t"type": "stdio",\n\t\t\t"command": "npx",\n\t\t\t"args": ["-y", "@modelcontextprotocol/server-memory"] // keeps notes\n\t\t},\n\t},\n\t"inputs": []\n}\n',
  },
  windsurf: {
    path: '.codeium/windsurf/mcp_config.json',
    text: '{\n  "mcpServers": {\n    "git": { "command": "uvx", "args": ["mcp-server-git"], "disabled": false }\n  }\n}\n',
  },
  codex: {
    path: '.codex/config.toml',
    text: '# Codex settings\nmodel = "o3"\napproval_policy = "on-request"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"] # the docs server\n\n[mcp_servers.docs.env]\nDOCS_TOKEN = "abc"\n\n[profiles.fast]\nmodel = "o4-mini"\n',
  },
  'gemini-cli': {
    path: '.gemini/settings.json',
    text: '{\n  // Gemini CLI\n  "theme": "Dracula",\n  "mcpServers": {\n    "git": { "command": "uvx", "args": ["mcp-server-git"] }\n  }\n}\n',
  },
  zed: {
    path: '.config/zed/settings.json',
    text: '// Zed settings\n//\n// For information on how to configure Zed, see the Zed\n// documentation: https://zed.dev/docs/configuring-zed\n{\n  "ui_font_size": 16,\n  "context_servers": {\n    "postgres": {\n      "command": "npx",\n      "args": ["-y", "pg-mcp"],\n      "env": {},\n    },\n  },\n}\n',
  },
  'lm-studio': {
    path: '.lmstudio/mcp.json',
    text: '{\n  "mcpServers": {\n    "hf-mcp-server": { "url": "https://example.invalid/mcp", "headers": { "Authorization": "Bearer x" } }\n  }\n}\n',
  },
} as const;
