import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { SandpitClient } from '../../shared/api/client';
import { App } from './App';
import { createAppStores } from './stores/app-stores';
import { PanelContext } from './stores/panel-context';
import type { PanelSnapshot } from './stores/panel-store';

const client: SandpitClient = {
  transport: 'ipc',
  call: () => Promise.reject(new Error('unused')),
  subscribe: () => () => undefined,
    onLink: () => () => undefined,
    setToken: () => undefined,
};

function render(state: PanelSnapshot): string {
  const stores = createAppStores(client, { panel: state });
  return renderToStaticMarkup(
    <PanelContext value={{ client, stores }}>
      <App />
    </PanelContext>,
  );
}

describe('App', () => {
  it('says Docker is not running, what is wrong and how to fix it', () => {
    const html = render({
      connection: 'ready',
      engine: {
        state: 'down',
        endpoint: '/var/run/docker.sock',
        message: 'Docker is not running.',
        fix: 'Start Docker Desktop.',
      },
    });
    expect(html).toContain('Docker is not running');
    expect(html).toContain('Docker is not running.');
    expect(html).toContain('How to fix it:');
    expect(html).toContain('Start Docker Desktop.');
    expect(html).toContain('Check again');
    expect(html).toContain('data-testid="status-engine"');
  });

  it('shows the engine version and an empty state that says what to do next', () => {
    const html = render({
      connection: 'ready',
      engine: { state: 'up', endpoint: '/var/run/docker.sock', version: '20.10.24' },
      sessions: [],
    });
    expect(html).toContain('Docker is running');
    expect(html).toContain('20.10.24');
    expect(html).toContain('No sessions yet. Ask your assistant to run some code, or start one here');
  });

  it('explains when the panel cannot reach Sandpit', () => {
    const html = render({ connection: 'unreachable', problem: 'Cannot reach Sandpit.' });
    expect(html).toContain('Sandpit is not reachable');
    expect(html).toContain('Cannot reach Sandpit.');
  });

  it('has a navigation button for every screen, the current one marked', () => {
    const html = render({ connection: 'ready', screen: 'artifacts' });
    for (const id of ['sessions', 'environments', 'artifacts', 'activity', 'connect', 'settings']) {
      expect(html).toContain(`data-testid="nav-${id}"`);
    }
    expect(html).toMatch(/aria-current="page"[^>]*data-testid="nav-artifacts"/);
    expect(html).toContain('data-testid="artifacts-screen"');
  });
});
