import type { ReactElement } from 'react';
import { usePanel } from '../../stores/panel-context';
import { SCREENS } from '../../stores/panel-store';
import type { Screen } from '../../stores/panel-store';

export const SCREEN_WORDS: Record<Screen, { label: string; hint: string }> = {
  sessions: { label: 'Sessions', hint: 'Sandboxes running now' },
  environments: { label: 'Environments', hint: 'Packages and network' },
  artifacts: { label: 'Artifacts', hint: 'Files runs made' },
  activity: { label: 'Activity', hint: 'Everything that ran' },
  connect: { label: 'Connect', hint: 'Set up your assistant' },
  settings: { label: 'Settings', hint: 'Limits and policies' },
};

/** The left navigation. */
export function Nav({ badges }: { badges?: Partial<Record<Screen, number>> }): ReactElement {
  const screen = usePanel((s) => s.screen);
  const navigate = usePanel((s) => s.navigate);
  return (
    <nav className="nav" aria-label="Main" data-testid="nav">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          ▦
        </span>{' '}
        Sandpit
      </div>
      <ul>
        {SCREENS.map((id) => (
          <li key={id}>
            <button
              type="button"
              className={screen === id ? 'nav-item nav-on' : 'nav-item'}
              aria-current={screen === id ? 'page' : undefined}
              onClick={() => navigate(id)}
              data-testid={`nav-${id}`}
            >
              <span className="nav-label">{SCREEN_WORDS[id].label}</span>
              <span className="nav-hint">{SCREEN_WORDS[id].hint}</span>
              {badges?.[id] ? (
                <span className="nav-badge" aria-label={`${badges[id]} waiting`}>
                  {badges[id]}
                </span>
              ) : null}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
