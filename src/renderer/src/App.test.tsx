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
    onRefused: () => () => undefined,
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
  it('says Sandpit cannot reach Docker, names the address and where it came from, and offers both fixes', () => {
    const html = render({
      connection: 'ready',
      engine: {
        state: 'down',
        endpoint: 'unix:///tmp/nope.sock',
        source: 'the Sandpit setting',
        message: 'Nothing answers at unix:///tmp/nope.sock.',
        fix: 'Start Docker Desktop.',
      },
    });
    expect(html).toContain('Sandpit cannot reach Docker');
    expect(html).toContain('unix:///tmp/nope.sock');
    expect(html).toContain('the Docker address set in Settings');
    expect(html).toContain('If Docker is not running: start it');
    expect(html).toContain('Start Docker Desktop.');
    expect(html).toContain('If the address is wrong');
    expect(html).toContain('Find Docker by itself again');
    expect(html).toContain('Check again');
    expect(html).toContain('data-testid="status-engine"');
  });

  it('says when it lost Sandpit, and shows no Docker or session state meanwhile', () => {
    const html = render({
      connection: 'ready',
      link: 'lost',
      engine: { state: 'up', endpoint: '/var/run/docker.sock' },
    });
    expect(html).toContain('Lost the connection to Sandpit — reconnecting…');
    expect(html).not.toContain('Docker is running');
    expect(html).toContain('data-state="lost"');
  });

  it('says what happened when the link was replaced', () => {
    const html = render({ connection: 'unreachable', access: 'replaced', problem: 'x' });
    expect(html).toContain('The link of this page was replaced');
  });

  it('shows the engine version and an empty state that says what to do next', () => {
    const html = render({
      connection: 'ready',
      engine: { state: 'up', endpoint: '/var/run/docker.sock', version: '20.10.24' },
      sessions: [],
    });
    expect(html).toContain('Docker is running');
    expect(html).toContain('20.10.24');
    expect(html).toContain('No sessions yet. When your assistant runs code, its session appears here');
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
