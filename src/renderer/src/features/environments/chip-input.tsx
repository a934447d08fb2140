import { useState } from 'react';
import type { ReactElement } from 'react';

interface ChipInputProps {
  id: string;
  label: string;
  hint: string;
  chips: string[];
  onChange: (chips: string[]) => void;
  /** The chip the server refused, shown in red with `invalidMessage`. */
  invalid?: string;
  invalidMessage?: string;
  /** A chip to highlight (e.g. the package a build failed on). */
  failed?: string;
  placeholder?: string;
  testId: string;
}

/** Adds a chip from what is typed; tells why not when it is a repeat. */
export function addChip(chips: string[], typed: string): { chips: string[]; problem?: string } {
  const value = typed.trim();
  if (!value) return { chips };
  if (chips.includes(value)) return { chips, problem: `“${value}” is already in the list.` };
  return { chips: [...chips, value] };
}

/** A dependency picker: type a name, Enter adds it as a chip; each chip has a remove button. */
export function ChipInput({
  id,
  label,
  hint,
  chips,
  onChange,
  invalid,
  invalidMessage,
  failed,
  placeholder,
  testId,
}: ChipInputProps): ReactElement {
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const add = (): void => {
    const next = addChip(chips, typed);
    setProblem(next.problem);
    if (next.chips !== chips) onChange(next.chips);
    if (!next.problem) setTyped('');
  };
  return (
    <div className="field" data-testid={testId}>
      <label htmlFor={id} className="label">
        {label}
      </label>
      <p id={hintId} className="muted small">
        {hint}
      </p>
      <div className="chips">
        <ul className="chip-list" aria-label={label}>
          {chips.map((chip) => {
            const bad = chip === invalid;
            const broke = chip === failed;
            return (
              <li
                key={chip}
                className={`chip${bad ? ' chip-invalid' : ''}${broke ? ' chip-failed' : ''}`}
                data-testid="chip"
                data-invalid={bad || undefined}
                data-failed={broke || undefined}
              >
                <span>{chip}</span>
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Remove ${chip}`}
                  onClick={() => onChange(chips.filter((c) => c !== chip))}
                  data-testid="chip-remove"
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
        <input
          id={id}
          type="text"
          className="chip-typing"
          value={typed}
          placeholder={placeholder}
          aria-describedby={`${hintId}${invalid ? ` ${errorId}` : ''}`}
          aria-invalid={invalid ? true : undefined}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => {
            setTyped(event.target.value);
            setProblem(undefined);
          }}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              add();
            } else if (event.key === 'Backspace' && typed === '' && chips.length > 0) {
              onChange(chips.slice(0, -1));
            }
          }}
          data-testid={`${testId}-input`}
        />
        <button
          type="button"
          className="secondary small"
          onClick={add}
          disabled={!typed.trim()}
          data-testid={`${testId}-add`}
        >
          Add
        </button>
      </div>
      {problem ? <p className="field-error">{problem}</p> : null}
      {invalid && invalidMessage ? (
        <p id={errorId} className="field-error" role="alert" data-testid={`${testId}-error`}>
          {invalidMessage}
        </p>
      ) : null}
    </div>
  );
}
