import { useCallback, useEffect, useState } from 'react';
import { useClient } from '../../stores/panel-context';

/**
 * How many changes wait for the person's OK in a session's review folders (undefined: it has none, or not
 * known yet); looked up again after each run of the session and when `bump` changes (an apply or discard).
 */
export function usePendingChanges(
  sessionId: string,
  hasReviewFolder: boolean,
): { count: number | undefined; refresh: () => void } {
  const client = useClient();
  const [count, setCount] = useState<number | undefined>();
  const refresh = useCallback((): void => {
    if (!hasReviewFolder) {
      setCount(undefined);
      return;
    }
    client
      .call('changes.list', { sessionId })
      .then((listed) => setCount(listed.folders.reduce((n, f) => n + f.changes.length, 0)))
      .catch(() => setCount(undefined));
  }, [client, sessionId, hasReviewFolder]);
  useEffect(refresh, [refresh]);
  useEffect(
    () =>
      client.subscribe((event) => {
        if (event.name === 'execution.done' && event.payload.sessionId === sessionId) refresh();
      }),
    [client, sessionId, refresh],
  );
  return { count, refresh };
}
