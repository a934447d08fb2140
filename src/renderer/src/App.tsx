/**
 * The panel's shell: left navigation, the screen, the status bar, and approval prompts over everything.
 * Stable data-testid attributes for Playwright are listed in src/renderer/TESTIDS.md.
 */
import { useEffect, useRef } from 'react';
import type { ReactElement } from 'react';
import { EngineStatusCard } from './features/engine/engine-status-card';
import { ActivityScreen } from './features/activity/activity-screen';
import { ApprovalStack } from './features/approvals/approval-stack';
import { ArtifactsScreen } from './features/artifacts/artifacts-screen';
import { SnapshotsScreen } from './features/snapshots/snapshots-screen';
import { ConnectScreen } from './features/connect/connect-screen';
import { EnvironmentsScreen } from './features/environments/environments-screen';
import { GuideScreen } from './features/guide/guide-screen';
import { SessionsScreen } from './features/sessions/sessions-screen';
import { SettingsScreen } from './features/settings/settings-screen';
import { ConnectStatus } from './features/shell/connect-status';
import { LeaveGuard } from './features/shell/leave-guard';
import { LinkBanner } from './features/shell/link-banner';
import { Nav } from './features/shell/nav';
import { StatusBar } from './features/shell/status-bar';
import { useThemeEffect } from './features/shell/theme-effect';
import { UnreachableCard } from './features/shell/unreachable-card';
import { usePanel } from './stores/panel-context';
import type { Screen } from './stores/routes';

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
  snapshots: SnapshotsScreen,
  activity: ActivityScreen,
  connect: ConnectScreen,
  settings: SettingsScreen,
  'getting-started': GuideScreen,
};

/** After a move to another screen or session, focus goes to its heading (where a screen reader starts reading). */
function useFocusOnMove(screen: Screen, sessionId: string | undefined): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return undefined;
    }
    const frame = requestAnimationFrame(() => {
      const heading = document.querySelector<HTMLElement>('#main h1');
      heading?.focus({ preventScroll: true });
      document.getElementById('main')?.scrollTo({ top: 0 });
    });
    return () => cancelAnimationFrame(frame);
  }, [screen, sessionId]);
}

function Screens(): ReactElement {
  const screen = usePanel((s) => s.screen);
  const sessionId = usePanel((s) => s.openSessionId);
  const engineDown = usePanel((s) => s.engine?.state === 'down' && s.link === 'up');
  useFocusOnMove(screen, sessionId);
  const View = SCREEN_VIEWS[screen];
  return (
    <>
      <LinkBanner />
      <ActionError />
      {engineDown ? <EngineStatusCard /> : null}
      <View />
    </>
  );
}

export function App(): ReactElement {
  const connection = usePanel((s) => s.connection);
  const lost = usePanel((s) => s.link === 'lost');
  useThemeEffect();

  return (
    <div className="shell" data-testid="app" data-connection={connection} data-link={lost ? 'lost' : 'up'}>
      <Nav />
      <main className="content" id="main" data-testid="main">
        {connection === 'loading' ? (
          <p className="muted" data-testid="connecting">
            Connecting to Sandpit…
          </p>
        ) : null}
        {connection === 'unreachable' ? <UnreachableCard /> : null}
        {connection === 'ready' ? <Screens /> : null}
      </main>
      <StatusBar>
        <ConnectStatus />
      </StatusBar>
      <ApprovalStack />
      <LeaveGuard />
    </div>
  );
}
