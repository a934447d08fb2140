import type { ReactElement, ReactNode } from 'react';

/** What to do next when a list is empty. */
export function EmptyState({
  testId,
  children,
  action,
}: {
  testId: string;
  children: ReactNode;
  action?: ReactNode;
}): ReactElement {
  return (
    <div className="empty" data-testid={testId}>
      <p>{children}</p>
      {action}
    </div>
  );
}

/** A screen whose methods the core does not offer yet. */
export function NotAvailable({ testId, what }: { testId: string; what: string }): ReactElement {
  return (
    <div className="empty" data-testid={testId} role="note">
      <p>
        <strong>Not available yet.</strong> This version of Sandpit cannot show {what} in the panel. It will appear here
        once Sandpit is updated.
      </p>
    </div>
  );
}

/** A failed load, with a way to try again. */
export function LoadProblem({
  testId,
  message,
  retry,
}: {
  testId: string;
  message: string;
  retry: () => void;
}): ReactElement {
  return (
    <div className="notice" role="alert" data-testid={testId}>
      <p>{message}</p>
      <button type="button" onClick={retry}>
        Try again
      </button>
    </div>
  );
}
