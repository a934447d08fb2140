import type { SandpitTool } from '../define-tool';
import { checkPackages } from './check-packages';
import { createSession } from './create-session';
import { executeCode } from './execute-code';
import { installPackages } from './install-packages';
import { listEnvironmentsTool } from './list-environments';
import { listFiles } from './list-files';
import { listSessions } from './list-sessions';
import { readFile } from './read-file';
import { runCommand } from './run-command';
import { runFile } from './run-file';
import { stopSession } from './stop-session';
import { writeFile } from './write-file';

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
];
