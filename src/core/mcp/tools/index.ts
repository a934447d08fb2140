import type { SandpitTool } from '../define-tool';
import { checkPackages } from './check-packages';
import { createSession } from './create-session';
import { deleteSnapshot } from './delete-snapshot';
import { executeCode } from './execute-code';
import { forkSession } from './fork-session';
import { installPackages } from './install-packages';
import { listEnvironmentsTool } from './list-environments';
import { listChanges } from './list-changes';
import { listFiles } from './list-files';
import { listSessions } from './list-sessions';
import { listSnapshots } from './list-snapshots';
import { readFile } from './read-file';
import { restoreSnapshot } from './restore-snapshot';
import { runCommand } from './run-command';
import { runFile } from './run-file';
import { snapshotSession } from './snapshot-session';
import { stopSession } from './stop-session';
import { writeFile } from './write-file';
import { cancelRun } from './cancel-run';
import { getRun } from './get-run';
import { listRuns } from './list-runs';
import { startProcess } from './start-process';
import { listProcesses } from './list-processes';
import { processOutput } from './process-output';
import { stopProcess } from './stop-process';
import { previewPort } from './preview-port';

/** Every MCP tool Sandpit offers, in the order tools/list shows them. */
export const TOOLS: readonly SandpitTool[] = [
  executeCode,
  createSession,
  stopSession,
  listSessions,
  listEnvironmentsTool,
  installPackages,
  checkPackages,
  runCommand,
  writeFile,
  readFile,
  listFiles,
  runFile,
  snapshotSession,
  restoreSnapshot,
  forkSession,
  listSnapshots,
  deleteSnapshot,
  // Background runs (issue 23).
  getRun,
  cancelRun,
  listRuns,
  listChanges,
  startProcess,
  listProcesses,
  processOutput,
  stopProcess,
  previewPort,
];
