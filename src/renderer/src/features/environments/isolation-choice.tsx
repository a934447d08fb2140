import type { ReactElement } from 'react';
import { ISOLATION_LEVELS } from '../../../../shared/domain/isolation';
import type { Isolation } from '../../../../shared/domain/isolation';
import { ISOLATION_EXPLAINED } from '../../lib/isolation-words';
import { useAppStore } from '../../stores/panel-context';

/** An environment's isolation: as in Settings (the default), or its own choice. */
export function IsolationChoice({ value, onChange }: { value: Isolation | ''; onChange: (value: Isolation | '') => void }): ReactElement {
  const fallback = useAppStore('settings', (s) => s.view?.defaultIsolation);
  return (
    <fieldset className="choices" data-testid="env-isolation-choice">
      <legend className="label">Isolation</legend>
      <label className="choice choice-block">
        <input type="radio" name="env-isolation" checked={value === ''} onChange={() => onChange('')} data-testid="env-isolation-default" />
        <span>
          <strong>As in Settings</strong>
          <span className="muted small block">
            {fallback ? `Now: ${ISOLATION_EXPLAINED[fallback].title}.` : 'The isolation chosen in Settings.'} Changes there apply here too.
          </span>
        </span>
      </label>
      {ISOLATION_LEVELS.map((level) => (
        <label key={level} className="choice choice-block">
          <input type="radio" name="env-isolation" checked={value === level} onChange={() => onChange(level)} data-testid={`env-isolation-${level}`} />
          <span>
            <strong>{ISOLATION_EXPLAINED[level].title}</strong>
            <span className="muted small block">{ISOLATION_EXPLAINED[level].explain}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
