import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';
import { ASSISTANT_ENV, ASSISTANT_IDS, ASSISTANT_LABELS } from '../../shared/domain/assistants';
import type { AssistantId } from '../../shared/domain/assistants';
import type { StdioCommand } from '../../shared/domain/connect';

/** Where a person's assistants keep their settings: the home folder and the OS's settings folders. */
export interface UserPlaces {
  home: string;
  platform: 'linux' | 'darwin' | 'win32';
  /** Windows' %APPDATA% (default: <home>\AppData\Roaming). */
  appData?: string;
  /** $XDG_CONFIG_HOME on Linux (default: <home>/.config). */
  xdgConfigHome?: string;
  /** $CODEX_HOME (default: <home>/.codex). */
  codexHome?: string;
}

/** This computer's places, from the process's environment. */
export function userPlaces(env: NodeJS.ProcessEnv = process.env): UserPlaces {
  const platform = process.platform === 'win32' || process.platform === 'darwin' ? process.platform : 'linux';
  return {
    home: homedir(),
    platform,
    ...(env.APPDATA ? { appData: env.APPDATA } : {}),
    ...(env.XDG_CONFIG_HOME ? { xdgConfigHome: env.XDG_CONFIG_HOME } : {}),
    ...(env.CODEX_HOME ? { codexHome: env.CODEX_HOME } : {}),
  };
}

export type ConfigFormat = 'json' | 'jsonc' | 'toml';

export interface AssistantTarget {
  id: AssistantId;
  label: string;
  format: ConfigFormat;
  /** The configuration file Connect edits. */
  configPath: string;
  /** The folder whose presence means the assistant is installed (its own settings folder). */
  foundBy: string;
  /** The key (top level) that holds the servers. */
  serversKey: string;
  /** Sandpit's entry under that key. */
  entry(stdio: StdioCommand): Record<string, unknown>;
  restart: string;
  /** The names assistants give in their MCP handshake (for connections not started from a written config). */
  clientNames: readonly string[];
}

function plainEntry(stdio: StdioCommand): Record<string, unknown> {
  return { command: stdio.command, args: stdio.args, ...(stdio.env ? { env: stdio.env } : {}) };
}

function typedEntry(stdio: StdioCommand): Record<string, unknown> {
  return { type: 'stdio', ...plainEntry(stdio) };
}

/** Every assistant's configuration file on this kind of computer (paths as that OS spells them). */
export function assistantTargets(places: UserPlaces): AssistantTarget[] {
  const path = places.platform === 'win32' ? win32 : posix;
  const home = places.home;
  const appData = places.appData ?? path.join(home, 'AppData', 'Roaming');
  const xdg = places.xdgConfigHome ?? path.join(home, '.config');
  /** The OS's per-user settings folder as Electron apps use it. */
  const appSettings =
    places.platform === 'win32'
      ? appData
      : places.platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : xdg;
  const codexHome = places.codexHome ?? path.join(home, '.codex');
  const zedDir =
    places.platform === 'win32'
      ? path.join(appData, 'Zed')
      : places.platform === 'darwin'
        ? path.join(home, '.config', 'zed')
        : path.join(xdg, 'zed');
  const inFolder = (folder: string, file: string): { foundBy: string; configPath: string } => ({
    foundBy: folder,
    configPath: path.join(folder, file),
  });
  const restartApp = (label: string): string =>
    `Quit ${label} completely and open it again: it reads its configuration only when it starts.`;
  const restartCli = (command: string): string =>
    `Start a new ${command} session: it reads its configuration when it starts.`;
  const byId: Record<AssistantId, Omit<AssistantTarget, 'id' | 'label'>> = {
    'claude-desktop': {
      format: 'json',
      ...inFolder(path.join(appSettings, 'Claude'), 'claude_desktop_config.json'),
      serversKey: 'mcpServers',
      entry: plainEntry,
      restart: restartApp('Claude Desktop'),
      clientNames: ['claude-ai'],
    },
    'claude-code': {
      format: 'json',
      foundBy: path.join(home, '.claude'),
      configPath: path.join(home, '.claude.json'),
      serversKey: 'mcpServers',
      entry: typedEntry,
      restart: restartCli('`claude`'),
      clientNames: ['claude-code'],
    },
    cursor: {
      format: 'json',
      ...inFolder(path.join(home, '.cursor'), 'mcp.json'),
      serversKey: 'mcpServers',
      entry: plainEntry,
      restart: restartApp('Cursor'),
      clientNames: ['cursor-vscode'],
    },
    vscode: {
      format: 'jsonc',
      ...inFolder(path.join(appSettings, 'Code', 'User'), 'mcp.json'),
      serversKey: 'servers',
      entry: typedEntry,
      restart:
        'Run "Developer: Reload Window" in VS Code (or quit and open it again), then start Sandpit in the MCP servers list if it asks.',
      clientNames: ['Visual Studio Code'],
    },
    windsurf: {
      format: 'json',
      ...inFolder(path.join(home, '.codeium', 'windsurf'), 'mcp_config.json'),
      serversKey: 'mcpServers',
      entry: plainEntry,
      restart: restartApp('Windsurf'),
      clientNames: [],
    },
    codex: {
      format: 'toml',
      ...inFolder(codexHome, 'config.toml'),
      serversKey: 'mcp_servers',
      entry: plainEntry,
      restart: restartCli('`codex`'),
      clientNames: [],
    },
    'gemini-cli': {
      format: 'jsonc',
      ...inFolder(path.join(home, '.gemini'), 'settings.json'),
      serversKey: 'mcpServers',
      entry: plainEntry,
      restart: restartCli('`gemini`'),
      clientNames: [],
    },
    zed: {
      format: 'jsonc',
      ...inFolder(zedDir, 'settings.json'),
      serversKey: 'context_servers',
      entry: plainEntry,
      restart: 'Zed reads its settings as they change: open the Agent panel; Sandpit is listed under its MCP servers.',
      clientNames: ['Zed'],
    },
    'lm-studio': {
      format: 'json',
      ...inFolder(path.join(home, '.lmstudio'), 'mcp.json'),
      serversKey: 'mcpServers',
      entry: plainEntry,
      restart: restartApp('LM Studio'),
      clientNames: [],
    },
  };
  return ASSISTANT_IDS.map((id) => ({ id, label: ASSISTANT_LABELS[id], ...byId[id] }));
}

/** The stdio command Connect writes for one assistant: `sandpit mcp`, told which assistant starts it. */
export function commandFor(stdio: StdioCommand, id: AssistantId): StdioCommand {
  return { ...stdio, env: { ...stdio.env, [ASSISTANT_ENV]: id } };
}

/** The assistant a handshake's client name belongs to, when it is one of the known names. */
export function assistantOfClientName(
  name: string,
  places: UserPlaces = { home: '', platform: 'linux' },
): AssistantId | undefined {
  return assistantTargets(places).find((target) => target.clientNames.includes(name))?.id;
}
