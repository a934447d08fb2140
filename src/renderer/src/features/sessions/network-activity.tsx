import { useCallback, useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { EgressEntry } from '../../../../shared/domain/egress';
import { EmptyState } from '../../components/empty-state';
import { formatTime } from '../../lib/format';
import { useClient } from '../../stores/panel-context';
import { useSessionNames } from './session-name';
import { plainError } from '../../stores/panel-store';

const SHOWN = 100;

/** A connection let through, in words: reached only when it did, with the host's answer; else why it failed. */
export function passageWords(entry: Pick<EgressEntry, 'host' | 'connected' | 'answer'>): string {
  if (entry.connected === undefined) return `let through to ${entry.host} (connecting…)`;
  if (entry.connected) return `reached ${entry.host}${entry.answer ? ` — it ${entry.answer}` : ''}`;
  return `let through to ${entry.host}, but the connection failed: ${entry.answer ?? 'no answer'}`;
}

/** Whether an allow-list entry (`files.example.org`, `*.example.org`) covers `host`, as the egress filter compares them. */
export function isCovered(host: string, entries: readonly string[]): boolean {
  const h = host.toLowerCase();
  return entries.some((entry) => {
    const e = entry.toLowerCase();
    return e.startsWith('*.') ? h.endsWith(e.slice(1)) : h === e;
  });
}

/**
 * The hosts sessions tried to reach through the egress proxy (environments with the network policy
 * "packages"), newest first, in plain words: reached, or blocked and why. A blocked host can be allowed
 * for the session's environment in one click (it applies at once). `sessionId` narrows it to one session.
 */
export function NetworkActivity({ sessionId, environmentId }: { sessionId?: string; environmentId?: string }): ReactElement {
  const client = useClient();
  const names = useSessionNames();
  const [entries, setEntries] = useState<EgressEntry[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [note, setNote] = useState<string | undefined>();
  // The environment's allowed hosts now: a host blocked earlier but allowed since no longer offers "Allow".
  const [allowed, setAllowed] = useState<{ name: string; hosts: string[] } | undefined>();

  useEffect(() => {
    if (!environmentId) return undefined;
    let live = true;
    client.call('environments.get', { environmentId }).then(
      (env) => {
        if (live) setAllowed({ name: env.name, hosts: env.allowedHosts });
      },
      () => undefined,
    );
    const stop = client.subscribe((event) => {
      if (event.name === 'environment.updated' && event.payload.id === environmentId) setAllowed({ name: event.payload.name, hosts: event.payload.allowedHosts });
    });
    return () => {
      live = false;
      stop();
    };
  }, [client, environmentId]);

  const load = useCallback(() => {
    client.call('egress.recent', { ...(sessionId ? { sessionId } : {}), limit: SHOWN }).then(
      ({ entries: next }) => {
        setEntries(next);
        setProblem(undefined);
      },
      (error: unknown) => setProblem(plainError(error)),
    );
  }, [client, sessionId]);

  useEffect(() => {
    load();
    let pending: ReturnType<typeof setTimeout> | undefined;
    const stop = client.subscribe((event) => {
      if (event.name !== 'egress.allowed' && event.name !== 'egress.refused' && event.name !== 'egress.outcome') return;
      if (sessionId && event.payload.sessionId !== sessionId) return;
      // Many connections come in bursts (an install): read the list once they settle.
      clearTimeout(pending);
      pending = setTimeout(load, 300);
    });
    return () => {
      clearTimeout(pending);
      stop();
    };
  }, [client, load, sessionId]);

  const allow = async (host: string): Promise<void> => {
    if (!environmentId) return;
    try {
      const env = await client.call('environments.get', { environmentId });
      if (env.allowedHosts.includes(host)) {
        setNote(`${host} is already allowed for "${env.name}".`);
        return;
      }
      const updated = await client.call('environments.update', { environmentId, patch: { allowedHosts: [...env.allowedHosts, host] } });
      setAllowed({ name: updated.name, hosts: updated.allowedHosts });
      setNote(`${host} is now allowed for "${env.name}": its sessions may reach it from now on. Environments → ${env.name} lists it, and takes it back.`);
    } catch (error) {
      setNote(`Could not allow ${host}: ${plainError(error)}`);
    }
  };

  if (problem) return <p className="muted" data-testid="network-problem">Could not read the network activity: {problem}</p>;
  if (!entries) return <p className="muted">Loading the network activity…</p>;
  return (
    <div data-testid="network-activity">
      {note ? (
        <p className="small" role="status" data-testid="network-note">
          {note}
        </p>
      ) : null}
      {entries.length === 0 ? (
        <EmptyState testId="network-empty">
          No connections yet. Sessions without network reach nothing; with &quot;Package downloads only&quot;, every host they try to reach is listed here.
        </EmptyState>
      ) : (
        <ul className="plain-list" data-testid="network-list">
          {entries.map((entry, i) => (
            <li key={`${entry.time}-${entry.host}-${i}`} data-testid="network-entry" data-allowed={entry.allowed ? 'yes' : 'no'}>
              <span className="muted small">{formatTime(entry.time)}</span>{' '}
              {entry.allowed ? (
                <span data-testid="network-passage" data-outcome={entry.connected === undefined ? 'connecting' : entry.connected ? 'reached' : 'failed'}>
                  {passageWords(entry)}
                  {entry.secretWords ? (
                    <span data-testid="network-secret">
                      {' '}
                      — {entry.secretWords}
                    </span>
                  ) : null}
                </span>
              ) : (
                <>
                  tried to reach <strong>{entry.host}</strong> — blocked: {entry.reason ?? 'not allowed'}
                  {environmentId && entry.reasonCode === 'host-not-allowed' && allowed && isCovered(entry.host, allowed.hosts) ? (
                    <span className="muted small" data-testid="network-allowed-since">
                      {' '}
                      — allowed for “{allowed.name}” since
                    </span>
                  ) : environmentId && entry.reasonCode === 'host-not-allowed' ? (
                    <>
                      {' '}
                      <button type="button" className="link-button" onClick={() => void allow(entry.host)} data-testid="network-allow">
                        Allow {entry.host} for this environment
                      </button>
                    </>
                  ) : null}
                </>
              )}
              {!sessionId && entry.sessionId ? (
                <span className="muted small" title={entry.sessionId} data-testid="network-session">
                  {' '}
                  · {names.get(entry.sessionId) ?? entry.sessionName ?? 'an ended session'}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
