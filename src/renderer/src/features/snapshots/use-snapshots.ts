import { useCallback, useEffect, useState } from 'react';
import type { Snapshot } from '../../../../shared/domain/snapshot';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

export interface SnapshotList {
  status: 'loading' | 'ready' | 'error';
  problem?: string;
  snapshots: Snapshot[];
  storedBytes: number;
  reload: () => Promise<void>;
}

/** The snapshots, newest first, loaded when a screen shows them (and again on `reload`). */
export function useSnapshots(): SnapshotList {
  const client = useClient();
  const [state, setState] = useState<Omit<SnapshotList, 'reload'>>({ status: 'loading', snapshots: [], storedBytes: 0 });
  const reload = useCallback(async () => {
    try {
      const { snapshots, storedBytes } = await client.call('snapshots.list', {});
      setState({ status: 'ready', snapshots, storedBytes });
    } catch (error) {
      setState((s) => ({ ...s, status: 'error', problem: plainError(error) }));
    }
  }, [client]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { ...state, reload };
}
