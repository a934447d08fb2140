import { useEffect, useState } from 'react';
import type { SessionStats } from '../../../../shared/domain/session';
import { useClient, usePanel } from '../../stores/panel-context';

/** Samples kept: two minutes at one every 2 s. */
export const MAX_SAMPLES = 60;
export const STATS_INTERVAL_MS = 2_000;

/** Adds a sample, keeping the newest `max` (a repeat of the last one, by time, is dropped). */
export function appendSample(samples: readonly SessionStats[], sample: SessionStats, max = MAX_SAMPLES): SessionStats[] {
  if (samples[samples.length - 1]?.at === sample.at) return [...samples];
  const next = [...samples, sample];
  return next.length > max ? next.slice(next.length - max) : next;
}

function visible(): boolean {
  return typeof document === 'undefined' || document.visibilityState !== 'hidden';
}

/**
 * What a session uses, measured every 2 s while its page is open, the window visible, the session
 * running and Sandpit reachable; nothing is asked otherwise. Resets when the session changes.
 */
export function useSessionStats(sessionId: string, running: boolean): { samples: SessionStats[]; problem?: string } {
  const client = useClient();
  const lost = usePanel((s) => s.link === 'lost');
  const [samples, setSamples] = useState<SessionStats[]>([]);
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    setSamples([]);
    setProblem(undefined);
  }, [sessionId]);

  useEffect(() => {
    if (!running || lost) return undefined;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = (): void => {
      if (!visible()) {
        timer = setTimeout(tick, STATS_INTERVAL_MS);
        return;
      }
      client.call('sessions.stats', { sessionId }).then(
        (stats) => {
          if (!live) return;
          setSamples((old) => appendSample(old, stats));
          setProblem(undefined);
          timer = setTimeout(tick, STATS_INTERVAL_MS);
        },
        (error: unknown) => {
          if (!live) return;
          setProblem(error instanceof Error ? error.message : String(error));
          timer = setTimeout(tick, STATS_INTERVAL_MS * 2);
        },
      );
    };
    tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [client, sessionId, running, lost]);

  return { samples, ...(problem ? { problem } : {}) };
}
