import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';

/**
 * Copies text to the clipboard and says so for a moment. `text` may be worked out at the click (a setup that
 * needs the access key fetched first); "copied" is said only once the clipboard holds it.
 */
export function CopyButton({
  text,
  label = 'Copy',
  copiedLabel = 'Copied',
  failedLabel = 'Select and copy by hand',
  testId,
}: {
  text: string | (() => Promise<string>);
  label?: string;
  copiedLabel?: string;
  failedLabel?: string;
  testId?: string;
}): ReactElement {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return undefined;
    const timer = setTimeout(() => setState('idle'), 2_000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(typeof text === 'string' ? text : await text());
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" className="secondary" onClick={() => void copy()} data-testid={testId}>
      <span aria-live="polite">{state === 'copied' ? copiedLabel : state === 'failed' ? failedLabel : label}</span>
    </button>
  );
}
