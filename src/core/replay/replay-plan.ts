import type { AuditEntry } from '../../shared/domain/audit';

/** One API call a replayed run is made of; `audited` calls are the run itself (they carry replay_of). */
export interface ReplayStep {
  method: 'sessions.execute' | 'sessions.runCommand' | 'sessions.runFile' | 'packages.install' | 'packages.check' | 'files.write' | 'processes.start';
  input: Record<string, unknown>;
  audited: boolean;
}

/**
 * The calls that repeat one recorded row in the replay session: the same method with the recorded code, command
 * or packages. A run_file first writes the file with the content the row recorded (the file itself was put there
 * by calls the audit log does not keep), then runs it.
 */
export function replayCall(entry: AuditEntry, sessionId: string): ReplayStep[] {
  switch (entry.method) {
    case 'sessions.execute':
      return [{ method: 'sessions.execute', input: { sessionId, code: entry.code }, audited: true }];
    case 'sessions.runCommand':
      return [{ method: 'sessions.runCommand', input: { sessionId, command: entry.code }, audited: true }];
    case 'sessions.runFile':
      return [
        ...(entry.fileContent === undefined ? [] : [{ method: 'files.write' as const, input: { sessionId, path: entry.code, content: entry.fileContent }, audited: false }]),
        { method: 'sessions.runFile', input: { sessionId, path: entry.code }, audited: true },
      ];
    case 'packages.install':
      return [{ method: 'packages.install', input: { sessionId, packages: entry.code.split('\n').filter((p) => p !== '') }, audited: true }];
    case 'packages.check':
      return [{ method: 'packages.check', input: { sessionId, packages: entry.code.split('\n').filter((p) => p !== '') }, audited: true }];
    case 'processes.start':
      // Started again, to keep running in the replay session (its row completes when it ends there).
      return [{ method: 'processes.start', input: { sessionId, command: entry.code }, audited: true }];
    // A preview runs nothing: a replay has nothing to repeat for it. The person's own decision about a
    // folder's changes is never replayed.
    case 'previews.open':
    case 'changes.apply':
    case 'changes.discard':
      return [];
  }
}
