import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { backgroundRunSchema, runIdSchema } from '../../shared/domain/background-run';
import { callerKeySchema } from '../../shared/domain/caller-key';
import type { BackgroundRun } from '../../shared/domain/background-run';
import { executionResultSchema } from '../../shared/domain/execution';
import type { ExecutionResult } from '../../shared/domain/execution';
import { commandResultSchema } from '../../shared/domain/packages';
import type { CommandResult } from '../../shared/domain/packages';
import { toErrorBody } from '../../shared/api/errors';
import type { Logger } from '../log';
import { writeFileAtomic } from '../util/atomic-write';

/** How many finished background runs are kept, in memory and in the data folder (the oldest are forgotten first). */
export const KEEP_FINISHED_RUNS = 200;
/** The largest record written or read back; a bigger result is kept shortened (its output's last part). */
export const MAX_RECORD_BYTES = 512 * 1024;
/** What a shortened record keeps of each stream. */
const SHORT_STREAM_CHARS = 64 * 1024;
/** What get_run says of a run that had not ended when Sandpit quit: the words of a process's audit row. */
export const STOPPED_AT_QUIT = 'Stopped: Sandpit quit.';

const recordSchema = z
  .object({
    version: z.literal(1),
    /** Absent: the panel started it (only the panel sees it). */
    owner: callerKeySchema.optional(),
    view: backgroundRunSchema.extend({ runId: runIdSchema }),
    execution: executionResultSchema.optional(),
    command: commandResultSchema.optional(),
  })
  .strict();
export type RunRecord = z.infer<typeof recordSchema>;

const FILE = /^(run-[a-z0-9]{8,40})\.json$/;

const tail = (text: string): string => (text.length > SHORT_STREAM_CHARS ? text.slice(-SHORT_STREAM_CHARS) : text);

/** A record that fits MAX_RECORD_BYTES: the output's last part of each stream, no displays, saying so. */
function fitted(record: RunRecord): string {
  const full = JSON.stringify(record);
  if (Buffer.byteLength(full) <= MAX_RECORD_BYTES) return full;
  const note = 'Kept shortened by Sandpit: only the last part of the output (and no pictures) is kept for get_run.';
  const execution: ExecutionResult | undefined = record.execution && {
    ...record.execution,
    stdout: tail(record.execution.stdout),
    stderr: tail(record.execution.stderr),
    truncated: { stdout: record.execution.truncated.stdout || record.execution.stdout.length > SHORT_STREAM_CHARS, stderr: record.execution.truncated.stderr || record.execution.stderr.length > SHORT_STREAM_CHARS },
    displays: [],
    ...(record.execution.result === undefined ? {} : { result: record.execution.result.slice(0, SHORT_STREAM_CHARS) }),
    ...(record.execution.error === undefined ? {} : { error: { ...record.execution.error, traceback: tail(record.execution.error.traceback) } }),
    message: record.execution.message ? `${record.execution.message} ${note}` : note,
  };
  const command: CommandResult | undefined = record.command && { ...record.command, stdout: tail(record.command.stdout), stderr: tail(record.command.stderr) };
  const short = JSON.stringify({ ...record, ...(execution ? { execution } : {}), ...(command ? { command } : {}) });
  // Still too big (thousands of files listed): only the view, which says it ended.
  return Buffer.byteLength(short) <= MAX_RECORD_BYTES ? short : JSON.stringify({ version: 1, ...(record.owner ? { owner: record.owner } : {}), view: record.view });
}

const unfinished = (view: BackgroundRun): boolean => view.state === 'queued' || view.state === 'running';

/**
 * The background runs' records in the data folder (`background-runs/<run id>.json`, one file each): written when a
 * run starts and when it ends, read back when Sandpit starts. Read back they are untrusted input: a file that does
 * not parse, is too big, names another id than its file name or an owner that is not one, is skipped and removed
 * (only files this folder lists, by their own checked names). A run that had not ended is read back as stopped.
 */
export class BackgroundRunStore {
  private readonly dir: string;
  /** One write after another per run, so that an older state never lands over a newer one. */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(
    home: string,
    private readonly log: Logger,
  ) {
    this.dir = join(home, 'background-runs');
  }

  save(record: RunRecord): void {
    const runId = record.view.runId;
    const text = fitted(record);
    const previous = this.writes.get(runId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
        await writeFileAtomic(join(this.dir, `${runId}.json`), text);
      })
      .catch((error: unknown) => this.log.warn('could not keep a background run in the data folder', { runId, error: toErrorBody(error).message }))
      .finally(() => {
        if (this.writes.get(runId) === next) this.writes.delete(runId);
      });
    this.writes.set(runId, next);
  }

  forget(runId: string): void {
    if (!runIdSchema.safeParse(runId).success) return;
    const previous = this.writes.get(runId) ?? Promise.resolve();
    const next = previous.then(() => rm(join(this.dir, `${runId}.json`), { force: true })).catch(() => undefined);
    this.writes.set(runId, next);
    void next.finally(() => {
      if (this.writes.get(runId) === next) this.writes.delete(runId);
    });
  }

  /** Every write asked for so far, on disk. */
  async flush(): Promise<void> {
    await Promise.all([...this.writes.values()]);
  }

  /** The records of earlier cores, oldest first; runs that had not ended are stopped (and written so). */
  async load(): Promise<RunRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const records: RunRecord[] = [];
    for (const name of names) {
      const match = FILE.exec(name);
      if (!match) continue;
      const record = await this.read(name, match[1]!);
      if (!record) {
        this.log.warn('a background run record in the data folder was refused (removed)', { file: name });
        await rm(join(this.dir, name), { force: true }).catch(() => undefined);
        continue;
      }
      if (unfinished(record.view)) {
        const { waiting: _waiting, ...rest } = record.view;
        record.view = { ...rest, state: 'failed', endedAt: new Date().toISOString(), error: { code: 'STOPPED', message: STOPPED_AT_QUIT } };
        this.save(record);
      }
      records.push(record);
    }
    return records.sort((a, b) => a.view.createdAt.localeCompare(b.view.createdAt));
  }

  private async read(name: string, runId: string): Promise<RunRecord | undefined> {
    const path = join(this.dir, name);
    try {
      const info = await stat(path);
      if (!info.isFile() || info.size > MAX_RECORD_BYTES) return undefined;
      const parsed = recordSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
      if (!parsed.success || parsed.data.view.runId !== runId) return undefined;
      // A result belongs to its kind of run, and to the session the run names.
      const { view, execution, command } = parsed.data;
      if (execution && (view.kind === 'command' || command)) return undefined;
      if (command && view.kind !== 'command') return undefined;
      const result = execution ?? command;
      if (result && view.sessionId !== undefined && result.sessionId !== view.sessionId) return undefined;
      if (execution && execution.executionId !== runId) return undefined;
      return parsed.data;
    } catch {
      return undefined;
    }
  }
}
