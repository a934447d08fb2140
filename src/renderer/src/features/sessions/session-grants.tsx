import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { SessionGrant } from '../../../../shared/domain/approval';
import { formatTime } from '../../lib/format';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/**
 * What the person allowed in this session from the chat ("Approve for this session", issue 23): those assistants' later
 * calls here run without asking. Each can be taken back; the assistant's next call is asked about again. Nothing is
 * shown while there is none.
 */
export function SessionGrants({ sessionId }: { sessionId: string }): ReactElement | null {
  const client = useClient();
  const [grants, setGrants] = useState<SessionGrant[]>([]);
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    let live = true;
    const load = (): void => {
      client.call('approvals.sessionGrants', { sessionId }).then(
        ({ grants: listed }) => {
          if (live) setGrants(listed);
        },
        (error: unknown) => {
          if (live) setProblem(plainError(error));
        },
      );
    };
    const stop = client.subscribe((event) => {
      if (event.name === 'approval.grants' && event.payload.sessionId === sessionId) load();
    });
    load();
    return () => {
      live = false;
      stop();
    };
  }, [client, sessionId]);

  if (grants.length === 0 && !problem) return null;
  const revoke = (name: string): void => {
    setProblem(undefined);
    client.call('approvals.revokeSessionGrant', { sessionId, client: name }).then(
      () => setGrants((list) => list.filter((g) => g.client !== name)),
      (error: unknown) => setProblem(plainError(error)),
    );
  };

  return (
    <section className="card" aria-labelledby="session-grants-title" data-testid="session-grants">
      <h2 id="session-grants-title">Allowed for this session without asking</h2>
      {problem ? (
        <p className="error" role="alert" data-testid="session-grants-problem">
          {problem}
        </p>
      ) : null}
      <ul className="plain-list">
        {grants.map((g) => (
          <li key={g.client} data-testid="session-grant" data-client={g.client}>
            <span>
              <strong>{g.client}</strong> runs code here without asking: you chose “Approve for this session” in the chat at {formatTime(g.grantedAt)}.
            </span>{' '}
            <button type="button" className="secondary" onClick={() => revoke(g.client)} data-testid="session-grant-revoke">
              Ask again
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
