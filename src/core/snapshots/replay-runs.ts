import { toErrorBody } from '../../shared/api/errors';
import type { ExecutionResult } from '../../shared/domain/execution';
import type { ReplayReport } from '../../shared/domain/snapshot';
import type { RunRecord } from '../sessions/run-history';

/** Runs one recorded run again: the caller's normal run path (audited, approval-checked), never a side door. */
export type RunAgain = (record: RunRecord, index: number) => Promise<ExecutionResult>;

const SHOWN_CODE_CHARS = 2_000;

function failure(result: ExecutionResult): string {
  if (result.error) return `${result.error.name}: ${result.error.value}`.slice(0, 2_000);
  return (result.message ?? `the run ended with status "${result.status}"`).slice(0, 2_000);
}

/**
 * Runs recorded runs again, in order, through `run`, stopping at the first that does not succeed (an
 * error, a timeout, a refusal): the report says which one, with its error, and that nothing after it ran.
 */
export async function replayRuns(records: readonly RunRecord[], historyComplete: boolean, run: RunAgain): Promise<ReplayReport> {
  const total = records.length;
  const partial = historyComplete ? '' : ' The session had run more than a snapshot keeps, so its later runs were not recorded.';
  for (const [i, record] of records.entries()) {
    let status: string;
    let error: string;
    try {
      const result = await run(record, i);
      if (result.status === 'ok') continue;
      status = result.status;
      error = failure(result);
    } catch (thrown) {
      const body = toErrorBody(thrown);
      status = 'failed';
      error = `${body.code}: ${body.message}`.slice(0, 2_000);
    }
    return {
      total,
      ran: i,
      complete: false,
      failed: { index: i + 1, code: record.code.slice(0, SHOWN_CODE_CHARS), status, error },
      message: `Run ${i + 1} of ${total} failed (${error}); the replay stopped there, so runs ${i + 2 <= total ? `${i + 2} to ${total}` : 'after it'} did not run.${partial}`,
    };
  }
  return {
    total,
    ran: total,
    complete: historyComplete,
    message: (total === 0 ? 'The snapshot recorded no runs to replay.' : `All ${total} recorded run${total === 1 ? '' : 's'} ran again.`) + partial,
  };
}
