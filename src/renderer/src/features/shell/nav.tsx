import type { ReactElement } from 'react';
import { usePanel } from '../../stores/panel-context';
import { SCREENS } from '../../stores/routes';
import type { NavScreen } from '../../stores/routes';

export const SCREEN_WORDS: Record<NavScreen, { label: string; hint: string; icon: string }> = {
  sessions: { label: 'Sessions', hint: 'Sandboxes running now', icon: '▶' },
  environments: { label: 'Environments', hint: 'Ready-made sandboxes', icon: '▣' },
  artifacts: { label: 'Artifacts', hint: 'Files runs made', icon: '▤' },
  snapshots: { label: 'Snapshots', hint: 'Saved copies of sessions', icon: '◧' },
  activity: { label: 'Activity', hint: 'Everything that ran', icon: '☰' },
  connect: { label: 'Connect', hint: 'Set up your assistant', icon: '⇄' },
  settings: { label: 'Settings', hint: 'Limits and policies', icon: '⚙' },
};

/** The left navigation; on narrow windows a strip of icons with short labels (the hint as a tooltip). */
export function Nav({ badges }: { badges?: Partial<Record<NavScreen, number>> }): ReactElement {
  const screen = usePanel((s) => (s.screen === 'getting-started' ? 'sessions' : s.screen));
  const navigate = usePanel((s) => s.navigate);
  return (
    <nav className="nav" aria-label="Main" data-testid="nav">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          ▦
        </span>
        <span className="brand-name"> Sandpit</span>
      </div>
      <ul>
        {SCREENS.map((id) => (
          <li key={id}>
            <a
              href={`#/${id}`}
              className={screen === id ? 'nav-item nav-on' : 'nav-item'}
              aria-current={screen === id ? 'page' : undefined}
              title={`${SCREEN_WORDS[id].label}: ${SCREEN_WORDS[id].hint}`}
              onClick={(event) => {
                if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
                event.preventDefault();
                navigate(id);
              }}
              data-testid={`nav-${id}`}
            >
              <span className="nav-icon" aria-hidden="true">
                {SCREEN_WORDS[id].icon}
              </span>
              <span className="nav-label">{SCREEN_WORDS[id].label}</span>
              <span className="nav-hint">{SCREEN_WORDS[id].hint}</span>
              {badges?.[id] ? (
                <span className="nav-badge" aria-label={`${badges[id]} waiting`}>
                  {badges[id]}
                </span>
              ) : null}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
