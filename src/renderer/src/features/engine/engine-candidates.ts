import { useCallback, useEffect, useState } from 'react';
import type { MethodOutput } from '../../../../shared/api/contract';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

export type EngineCandidate = MethodOutput<'engine.candidates'>['engines'][number];

/** The Docker engines this computer points at, each tried now (loaded when asked, and again on `refresh`). */
export function useEngineCandidates(): {
  engines: EngineCandidate[] | undefined;
  problem?: string;
  looking: boolean;
  refresh: () => void;
} {
  const client = useClient();
  const [engines, setEngines] = useState<EngineCandidate[] | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [looking, setLooking] = useState(false);
  const refresh = useCallback(() => {
    setLooking(true);
    client.call('engine.candidates').then(
      ({ engines: found }) => {
        setEngines(found);
        setProblem(undefined);
        setLooking(false);
      },
      (error: unknown) => {
        setEngines([]);
        setProblem(plainError(error));
        setLooking(false);
      },
    );
  }, [client]);
  useEffect(() => refresh(), [refresh]);
  return { engines, ...(problem ? { problem } : {}), looking, refresh };
}
