import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import { useClient } from '../../stores/panel-context';
import { withToken } from './connect-text';

/**
 * Copies a setup that needs the access key with the real key in it (fetched when it is not shown yet), so
 * what lands on the clipboard works as pasted; it says "Copied" only then.
 */
export function KeyedCopyButton({
  text,
  token,
  label,
  testId,
}: {
  text: string;
  token: string | undefined;
  label: string;
  testId: string;
}): ReactElement {
  const client = useClient();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return undefined;
    const timer = setTimeout(() => setState('idle'), 2_000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async (): Promise<void> => {
    try {
      const key = token ?? (await client.call('connect.revealToken')).token;
      await navigator.clipboard.writeText(withToken(text, key));
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" className="secondary" onClick={() => void copy()} data-testid={testId}>
      <span aria-live="polite">
        {state === 'copied'
          ? 'Copied, with the access key'
          : state === 'failed'
            ? 'Could not copy: select it and copy by hand'
            : label}
      </span>
    </button>
  );
}
