import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig, mcpHandOverMs } from './config';
import { resolveHome } from './home';

afterEach(() => {
  vi.unstubAllEnvs();
});

const posix = process.platform !== 'win32';

describe('resolveHome', () => {
  it('uses SANDPIT_HOME on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(
        resolveHome({ SANDPIT_HOME: '/data/sandpit', XDG_CONFIG_HOME: '/xdg', APPDATA: '/appdata' }, platform),
      ).toBe('/data/sandpit');
    }
  });

  it.runIf(posix)('takes an empty SANDPIT_HOME, or an extension setting left unfilled, as the default folder', () => {
    expect(resolveHome({ SANDPIT_HOME: '', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg/Sandpit');
    expect(resolveHome({ SANDPIT_HOME: '${user_config.data_folder}', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/xdg/Sandpit');
    expect(resolveHome({ SANDPIT_HOME: '/data/${x}', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe('/data/${x}');
  });

  it.runIf(posix)('uses $XDG_CONFIG_HOME/Sandpit on Linux', () => {
    expect(resolveHome({ XDG_CONFIG_HOME: '/home/ann/.cfg' }, 'linux')).toBe('/home/ann/.cfg/Sandpit');
  });

  it.runIf(posix)('uses ~/.config/Sandpit on Linux without XDG_CONFIG_HOME', () => {
    vi.stubEnv('HOME', '/home/ann');
    expect(resolveHome({}, 'linux')).toBe('/home/ann/.config/Sandpit');
  });

  it.runIf(posix)('uses ~/Library/Application Support/Sandpit on macOS, ignoring XDG', () => {
    vi.stubEnv('HOME', '/Users/ann');
    expect(resolveHome({ XDG_CONFIG_HOME: '/xdg' }, 'darwin')).toBe('/Users/ann/Library/Application Support/Sandpit');
  });

  it.runIf(posix)('uses %APPDATA%/Sandpit on Windows, or the roaming folder under home without it', () => {
    expect(resolveHome({ APPDATA: '/appdata/Roaming' }, 'win32')).toBe('/appdata/Roaming/Sandpit');
    vi.stubEnv('HOME', '/home/ann');
    expect(resolveHome({}, 'win32')).toBe('/home/ann/AppData/Roaming/Sandpit');
  });

  it('reads the process environment by default', () => {
    vi.stubEnv('SANDPIT_HOME', '/from/env');
    expect(resolveHome()).toBe('/from/env');
  });
});

describe('defaultConfig', () => {
  it('takes the channel from SANDPIT_CHANNEL when it is a known one, else auto', () => {
    vi.stubEnv('SANDPIT_CHANNEL', 'attach');
    expect(defaultConfig().channel).toBe('attach');
    vi.stubEnv('SANDPIT_CHANNEL', 'carrier-pigeon');
    expect(defaultConfig().channel).toBe('auto');
  });

  it('lets overrides win', () => {
    vi.stubEnv('SANDPIT_HOME', '/from/env');
    const config = defaultConfig({ poolSize: 0, home: '/override' });
    expect(config.poolSize).toBe(0);
    expect(config.home).toBe('/override');
    expect(defaultConfig().home).toBe('/from/env');
  });
});

describe('mcpHandOverMs (how long sandpit mcp leaves its warm sandboxes for the next one)', () => {
  it('is 10 minutes unless SANDPIT_HANDOVER_SECONDS says otherwise; 0 leaves none; nonsense is ignored; a day at most', () => {
    expect(mcpHandOverMs({})).toBe(600_000);
    expect(mcpHandOverMs({ SANDPIT_HANDOVER_SECONDS: '0' })).toBe(0);
    expect(mcpHandOverMs({ SANDPIT_HANDOVER_SECONDS: '90' })).toBe(90_000);
    expect(mcpHandOverMs({ SANDPIT_HANDOVER_SECONDS: 'soon' })).toBe(600_000);
    expect(mcpHandOverMs({ SANDPIT_HANDOVER_SECONDS: '-5' })).toBe(600_000);
    expect(mcpHandOverMs({ SANDPIT_HANDOVER_SECONDS: '999999999' })).toBe(86_400_000);
    // the desktop app and sandpit serve leave none
    expect(defaultConfig().handOverMs).toBe(0);
  });
});
