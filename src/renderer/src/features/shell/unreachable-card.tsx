import { useState } from 'react';
import type { ReactElement } from 'react';
import { tokenInHash } from '../../stores/routes';
import { useAdoptToken, usePanel } from '../../stores/panel-context';
import { WHERE_THE_LINK_IS, accessWords } from './access-words';

/** The token of a pasted panel link (`http://127.0.0.1:7411/#token=…`), or of a bare token. */
export function tokenOfLink(text: string): string | undefined {
  const trimmed = text.trim();
  const hash = trimmed.includes('#') ? trimmed.slice(trimmed.indexOf('#')) : '';
  return tokenInHash(hash) ?? (/^[A-Za-z0-9_-]{40,}$/.test(trimmed) ? trimmed : undefined);
}

/** Sandpit cannot be reached, or refused this page's link: what happened, and how to get back in. */
export function UnreachableCard(): ReactElement {
  const problem = usePanel((s) => s.problem);
  const access = usePanel((s) => s.access);
  const load = usePanel((s) => s.load);
  const adoptToken = useAdoptToken();
  const [pasted, setPasted] = useState('');
  const [pasteProblem, setPasteProblem] = useState<string | undefined>();
  const words = access ? accessWords(access) : undefined;

  const usePasted = (): void => {
    const token = tokenOfLink(pasted);
    if (!token) {
      setPasteProblem('That does not look like a panel link: it should end in #token= followed by a long code.');
      return;
    }
    setPasteProblem(undefined);
    setPasted('');
    adoptToken?.(token);
  };

  return (
    <section className="card card-alert" role="alert" data-testid="unreachable" data-access={access ?? 'unreachable'}>
      <h1 tabIndex={-1}>{words?.title ?? 'Sandpit is not reachable'}</h1>
      <p>{problem}</p>
      {access && adoptToken ? (
        <>
          <p>{WHERE_THE_LINK_IS}</p>
          <p>
            <strong>Paste the {access === 'missing' ? '' : 'new '}link into the address bar of this tab</strong>, or into the box below:
            it works at once, without reloading.
          </p>
          <form
            className="inline-add"
            onSubmit={(event) => {
              event.preventDefault();
              usePasted();
            }}
          >
            <input
              type="text"
              className="grow-input"
              aria-label="The panel link"
              placeholder="Paste the link here (or into the address bar)"
              value={pasted}
              onChange={(e) => setPasted(e.target.value)}
              data-testid="unreachable-link"
            />
            <button type="submit" disabled={!pasted.trim()} data-testid="unreachable-use-link">
              Open
            </button>
          </form>
          {pasteProblem ? <p className="field-error">{pasteProblem}</p> : null}
        </>
      ) : (
        <>
          <p className="muted">This page reconnects by itself as soon as Sandpit answers again.</p>
          <button type="button" onClick={() => void load()} data-testid="unreachable-retry">
            Try again
          </button>
        </>
      )}
    </section>
  );
}
