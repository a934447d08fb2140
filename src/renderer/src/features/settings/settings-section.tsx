import type { ReactElement, ReactNode } from 'react';

/** A card of settings (the screen has one Save for all of them). */
export function SettingsSection({
  title,
  testId,
  intro,
  children,
}: {
  title: string;
  testId: string;
  intro?: ReactNode;
  children: ReactNode;
}): ReactElement {
  const titleId = `${testId}-title`;
  return (
    <section className="card form" aria-labelledby={titleId} data-testid={testId}>
      <h2 id={titleId}>{title}</h2>
      {intro ? <p className="muted">{intro}</p> : null}
      {children}
    </section>
  );
}

/** What the server (or the form) said about a field, under it. */
export function FieldError({ id, error }: { id: string; error: string | undefined }): ReactElement | null {
  if (!error) return null;
  return (
    <p className="field-error" id={`${id}-error`} role="alert" data-testid={`${id}-error`}>
      {error}
    </p>
  );
}

/** A labelled text or number field with an optional hint and error. */
export function Field({
  id,
  label,
  hint,
  value,
  onChange,
  placeholder,
  readOnly,
  inputMode,
  error,
}: {
  id: string;
  label: string;
  hint?: string;
  value: string;
  onChange?: (value: string) => void;
  placeholder?: string;
  readOnly?: boolean;
  inputMode?: 'numeric' | 'decimal' | 'url' | 'text';
  error?: string;
}): ReactElement {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
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
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        onChange={(e) => onChange?.(e.target.value)}
        data-testid={id}
      />
      <FieldError id={id} error={error} />
    </div>
  );
}
