import { useEffect, useRef } from 'react';
import type { ReactElement } from 'react';
import type { Approval } from '../../../../shared/domain/approval';
import { useNow } from '../../lib/use-now';
import { useAppStore, usePanel } from '../../stores/panel-context';
import { KIND_QUESTIONS, OUTCOME_WORDS, clock, secondsLeft } from './approval-words';

function ApprovalCard({
  approval,
  now,
  focusOnMount,
}: {
  approval: Approval;
  now: number;
  focusOnMount: boolean;
}): ReactElement {
  const respond = useAppStore('approvals', (s) => s.respond);
  const sessionName = usePanel((s) => s.sessions.find((x) => x.id === approval.sessionId)?.name);
  const answering = useAppStore('approvals', (s) => s.answering.includes(approval.id));
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusOnMount) ref.current?.focus();
  }, [focusOnMount]);
  const left = secondsLeft(approval.expiresAt, now);
  const total = Math.max(1, secondsLeft(approval.expiresAt, Date.parse(approval.createdAt)));
  const titleId = `approval-${approval.id}-title`;
  const descId = `approval-${approval.id}-desc`;
  return (
    <div
      ref={ref}
      className="approval"
      role="alertdialog"
      aria-labelledby={titleId}
      aria-describedby={descId}
      tabIndex={-1}
      data-testid="approval"
      data-approval-id={approval.id}
      data-kind={approval.kind}
    >
      <h2 id={titleId}>{KIND_QUESTIONS[approval.kind]}</h2>
      <p id={descId}>
        <strong data-testid="approval-client">{approval.client}</strong> asks: {approval.detail}
      </p>
      {approval.code ? (
        <pre className="approval-code" data-testid="approval-code" tabIndex={0}>
          {approval.code}
          {approval.codeTruncated ? '\n… (the rest is cut here)' : ''}
        </pre>
      ) : null}
      {approval.askedInChat ? (
        <p className="muted small" data-testid="approval-in-chat">
          Also asked in {approval.client}’s chat: whichever you answer first decides.
        </p>
      ) : null}
      {approval.sessionId ? (
        <details className="small">
          <summary>Details</summary>
          <p className="muted">
            Session {sessionName ? `“${sessionName}”` : ''} (<code data-testid="approval-session">{approval.sessionId}</code>), asked over{' '}
            {approval.transport}.
          </p>
        </details>
      ) : null}
      <div className="approval-timer">
        <progress max={total} value={left} aria-hidden="true" />
        <span className="muted small" data-testid="approval-countdown">
          {left > 0 ? `Answer within ${clock(left)}, or it will be denied.` : 'Time is up: it counts as denied.'}
        </span>
      </div>
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={answering}
          onClick={() => void respond(approval.id, 'deny')}
          data-testid="approval-deny"
        >
          Deny
        </button>
        <button
          type="button"
          disabled={answering || left === 0}
          onClick={() => void respond(approval.id, 'approve')}
          data-testid="approval-approve"
        >
          Approve
        </button>
      </div>
    </div>
  );
}

/** Requests waiting for the person's answer, shown at once over every screen, oldest on top. */
export function ApprovalStack(): ReactElement | null {
  const pending = useAppStore('approvals', (s) => s.pending);
  const ended = useAppStore('approvals', (s) => s.ended);
  const problem = useAppStore('approvals', (s) => s.problem);
  const dismissEnded = useAppStore('approvals', (s) => s.dismissEnded);
  const now = useNow(1_000);
  if (pending.length === 0 && ended.length === 0) return null;
  return (
    <aside className="approvals" aria-label="Requests waiting for your answer" data-testid="approvals">
      {problem ? (
        <p className="notice" role="alert">
          {problem}
        </p>
      ) : null}
      {pending.map((approval, i) => (
        <ApprovalCard key={approval.id} approval={approval} now={now} focusOnMount={i === 0} />
      ))}
      {ended.map((e) => (
        <div
          key={e.id}
          className="approval approval-ended"
          role="status"
          data-testid="approval-ended"
          data-outcome={e.outcome}
        >
          <p>
            A request from <strong>{e.client}</strong> was {OUTCOME_WORDS[e.outcome]}
            {e.inChat ? ' in the chat' : ''}.
          </p>
          <button type="button" className="secondary small" onClick={() => dismissEnded(e.id)}>
            OK
          </button>
        </div>
      ))}
    </aside>
  );
}
