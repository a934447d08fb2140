/**
 * The panel's shell: left navigation, the screen, the status bar, and approval prompts over everything.
 * Stable data-testid attributes for Playwright are listed in src/renderer/TESTIDS.md.
 */
import type { ReactElement } from 'react';
import { EngineStatusCard } from './features/engine/engine-status-card';
import { ActivityScreen } from './features/activity/activity-screen';
import { ApprovalStack } from './features/approvals/approval-stack';
import { ArtifactsScreen } from './features/artifacts/artifacts-screen';
import { ConnectScreen } from './features/connect/connect-screen';
import { EnvironmentsScreen } from './features/environments/environments-screen';
import { SessionsScreen } from './features/sessions/sessions-screen';
import { SettingsScreen } from './features/settings/settings-screen';
import { ConnectStatus } from './features/shell/connect-status';
import { Nav } from './features/shell/nav';
import { StatusBar } from './features/shell/status-bar';
import { usePanel } from './stores/panel-context';
import type { Screen } from './stores/panel-store';

function ActionError(): ReactElement | null {
  const actionError = usePanel((s) => s.actionError);
  const dismissError = usePanel((s) => s.dismissError);
  if (!actionError) return null;
  return (
    <div className="notice" role="alert" data-testid="action-error">
      <p>{actionError}</p>
      <button type="button" onClick={dismissError} data-testid="action-error-dismiss">
        OK
      </button>
    </div>
  );
}

const SCREEN_VIEWS: Record<Screen, () => ReactElement> = {
  sessions: SessionsScreen,
  environments: EnvironmentsScreen,
  artifacts: ArtifactsScreen,
  activity: ActivityScreen,
  connect: ConnectScreen,
  settings: SettingsScreen,
};

function Screens(): ReactElement {
  const screen = usePanel((s) => s.screen);
  const engineDown = usePanel((s) => s.engine?.state === 'down');
  const View = SCREEN_VIEWS[screen];
  return (
    <>
      <ActionError />
      {engineDown ? <EngineStatusCard /> : null}
      <View />
    </>
  );
}

export function App(): ReactElement {
  const connection = usePanel((s) => s.connection);
  const problem = usePanel((s) => s.problem);
  const load = usePanel((s) => s.load);

  return (
    <div className="shell" data-testid="app" data-connection={connection}>
      <Nav />
      <main className="content" id="main" data-testid="main">
        {connection === 'loading' ? (
          <p className="muted" data-testid="connecting">
            Connecting to Sandpit…
          </p>
        ) : null}
        {connection === 'unreachable' ? (
          <section className="card card-alert" role="alert" data-testid="unreachable">
            <h2>Sandpit is not reachable</h2>
            <p>{problem}</p>
            <button type="button" onClick={() => void load()} data-testid="unreachable-retry">
              Try again
            </button>
          </section>
        ) : null}
        {connection === 'ready' ? <Screens /> : null}
      </main>
      <StatusBar>
        <ConnectStatus />
      </StatusBar>
      <ApprovalStack />
    </div>
  );
}
