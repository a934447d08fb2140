import { useState } from 'react';
import type { ReactElement, ReactNode } from 'react';

/** A card of settings with its own Save: shows what the server refused, or that it was saved. */
export function SettingsSection({
  title,
  testId,
  intro,
  children,
  onSave,
  dirty,
}: {
  title: string;
  testId: string;
  intro?: ReactNode;
  children: ReactNode;
  /** Saves; resolves with the error message when refused. */
  onSave?: () => Promise<string | undefined>;
  dirty?: boolean;
}): ReactElement {
  const [saving, setSaving] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>();
  const titleId = `${testId}-title`;
  return (
    <form
      className="card form"
      aria-labelledby={titleId}
      data-testid={testId}
      onSubmit={(event) => {
        event.preventDefault();
        if (!onSave) return;
        setSaving(true);
        setResult(undefined);
        void onSave().then((error) => {
          setSaving(false);
          setResult(error ? { ok: false, text: error } : { ok: true, text: 'Saved.' });
        });
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {intro ? <p className="muted">{intro}</p> : null}
      {children}
      {onSave ? (
        <div className="row">
          <span
            className={result?.ok === false ? 'field-error' : 'muted small'}
            role={result?.ok === false ? 'alert' : 'status'}
            data-testid={`${testId}-result`}
          >
            {result?.text ?? (dirty ? 'Not saved yet.' : '')}
          </span>
          <button type="submit" disabled={saving || dirty === false} data-testid={`${testId}-save`}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </div>
      ) : null}
    </form>
  );
}

/** A labelled text or number field with an optional hint. */
export function Field({
  id,
  label,
  hint,
  value,
  onChange,
  placeholder,
  readOnly,
  inputMode,
}: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onChange?: (value: string) => void;
  placeholder?: string;
  readOnly?: boolean;
  inputMode?: 'numeric' | 'decimal' | 'url' | 'text';
}): ReactElement {
  return (
    <div className="field">
      <label htmlFor={id} className="label">
        {label}
      </label>
      {hint ? (
        <p className="muted small" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <input
        id={id}
        type="text"
        value={value}
        placeholder={placeholder}
        readOnly={readOnly}
        inputMode={inputMode}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange?.(e.target.value)}
        data-testid={id}
      />
    </div>
  );
}

/** '' → undefined, else the number (NaN when not one). */
export function parseNumber(text: string): number | undefined {
  const t = text.trim();
  return t === '' ? undefined : Number(t);
}
