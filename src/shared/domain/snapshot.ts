import { z } from 'zod';
import { isolationSchema } from './isolation';
import { limitsSchema } from './limits';
import { LANGUAGES } from './languages';
import { sessionInfoSchema } from './session';

/** A snapshot's id: `snap-` and lowercase letters and digits. */
export const snapshotIdSchema = z.string().regex(/^snap-[a-z0-9]{8,40}$/).describe('Snapshot id (from snapshot_session or list_snapshots)');

/** What a snapshot holds and where it came from, as the panel lists it and an assistant reads it. */
export const snapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string().describe('When it was taken (ISO 8601)'),
  sessionId: z.string().describe('The session it was taken of'),
  sessionName: z.string(),
  language: z.enum(LANGUAGES),
  environment: z.string().optional().describe('Id of the environment the session was made from'),
  environmentName: z.string().optional(),
  image: z.string(),
  limits: limitsSchema,
  isolation: isolationSchema,
  files: z.number().int().describe('Workspace files it holds'),
  fileBytes: z.number().int().describe('Their sizes added up'),
  packages: z.array(z.string()).describe('Packages installed at run time (their files are in the snapshot)'),
  packageBytes: z.number().int().describe('Size of the installed packages it holds'),
  runs: z.number().int().describe('Successful runs recorded, in order (replayed with replay: true)'),
  historyComplete: z.boolean().describe('false: the session ran more than the history keeps, so a replay would be partial'),
  sizeBytes: z.number().int().describe('Everything it holds: files, packages and run history'),
  addedBytes: z.number().int().describe('Storage it added when taken (files already stored by another snapshot are shared)'),
  readBytes: z.number().int().nonnegative().optional().describe('Bytes of files read from the sandbox (files unchanged since the session\'s previous snapshot are not read again)'),
  skipped: z.array(z.string()).describe('Workspace entries left out: links and special files (never followed), what the sandbox user cannot read, names no path may have (shown escaped)'),
  sharedFoldersLeftOut: z
    .array(z.string())
    .default([])
    .describe("The session's shared folders (files of the person's computer, under /workspace): never copied into a snapshot, nor given to a restored or forked session"),
  reviewFolders: z
    .array(
      z.object({
        hostPath: z.string(),
        mountPath: z.string(),
        changes: z.number().int().describe('Pending changes it keeps (files, deletions, links)'),
      }),
    )
    .default([])
    .describe(
      "The session's folders whose changes need the person's OK, with their pending changes: a session restored in the panel, or a fork, gets the folder again with the same changes waiting (an assistant's restore does not get the folder)",
    ),
  shared: z.boolean().describe('Taken in the panel: every assistant may restore it (else only the client that took it)'),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

/** How a replay of the recorded runs went: all of them, or up to the first that failed. */
export const replayReportSchema = z.object({
  total: z.number().int().describe('Runs recorded in the snapshot'),
  ran: z.number().int().describe('Runs that ran again successfully'),
  complete: z.boolean().describe('Every recorded run ran again without an error'),
  failed: z
    .object({
      index: z.number().int().describe('Which run failed, counting from 1'),
      code: z.string().describe('Its code (at most 2,000 characters)'),
      status: z.string(),
      error: z.string().describe('What went wrong, in its own words'),
    })
    .optional()
    .describe('The first run that failed: nothing after it ran'),
  message: z.string().describe('What happened, in plain words'),
});
export type ReplayReport = z.infer<typeof replayReportSchema>;

/** A session made from a snapshot (restore or fork), with how its replay went when one was asked for. */
export const restoredSessionSchema = z.object({
  session: sessionInfoSchema,
  snapshot: snapshotSchema,
  files: z.number().int().describe('Files written into the new workspace'),
  replay: replayReportSchema.optional(),
  reviewFolders: z
    .array(
      z.object({
        hostPath: z.string(),
        mountPath: z.string(),
        carried: z.boolean().describe('The folder and its pending changes are in the new session'),
        message: z.string().describe('What happened, in plain words'),
      }),
    )
    .optional()
    .describe("The snapshot's folders whose changes need the person's OK"),
});
export type RestoredSession = z.infer<typeof restoredSessionSchema>;
