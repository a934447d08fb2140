import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { SandpitClient } from '../../shared/api/client';
import { App } from './App';
import { PanelContext } from './stores/panel-context';
import { createPanelStore } from './stores/panel-store';
import type { PanelSnapshot } from './stores/panel-store';

const client: SandpitClient = {
  transport: 'ipc',
  call: () => Promise.reject(new Error('unused')),
  subscribe: () => () => undefined,
};

function render(state: PanelSnapshot): string {
  const store = createPanelStore(client, state);
  return renderToStaticMarkup(
    <PanelContext value={store}>
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
  });

  it('shows the engine version and an empty state that says what to do next', () => {
    const html = render({
      connection: 'ready',
      engine: { state: 'up', endpoint: '/var/run/docker.sock', version: '20.10.24' },
      sessions: [],
    });
    expect(html).toContain('Docker is running');
    expect(html).toContain('20.10.24');
    expect(html).toContain('No sessions yet');
  });

  it('explains when the panel cannot reach Sandpit', () => {
    const html = render({ connection: 'unreachable', problem: 'Cannot reach Sandpit.' });
    expect(html).toContain('Sandpit is not reachable');
    expect(html).toContain('Cannot reach Sandpit.');
  });
});
