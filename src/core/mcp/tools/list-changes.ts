import { z } from 'zod';
import type { FolderChange } from '../../../shared/domain/folder-changes';
import { defineTool } from '../define-tool';
import { formatBytes, sessionIdField } from '../tool-fields';

/** Unified diff lines per text file the tool returns (a short look; the panel shows the whole). */
const DIFF_LINES = 40;

function changeLine(c: FolderChange): string {
  const size = c.after ? formatBytes(c.after.size) : c.before ? formatBytes(c.before.size) : '';
  const what = c.kind === 'renamed' ? `renamed from ${c.from}` : c.kind;
  const notes = [
    c.conflict ? `conflict: ${c.conflict}` : '',
    c.refused ? `never applied: ${c.refused.message}` : '',
  ].filter(Boolean);
  return `- ${c.path}: ${what}${size ? `, ${size}` : ''}${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

export const listChanges = defineTool({
  name: 'list_changes',
  title: 'List changes waiting for review',
  description:
    'Lists what your code changed in the person\'s folders shared with "Changes need my OK": added, changed, deleted and renamed files with sizes, ' +
    "and a short unified diff per text file. Those changes are NOT in the person's folder yet: the person reviews them in the Sandpit panel " +
    '(session → Changes) and applies or discards each one; you cannot apply them. Tell the person what you changed and why.',
  input: { session_id: sessionIdField },
  output: {
    folders: z
      .array(
        z.object({
          session_id: z.string(),
          path: z.string().describe('Where the folder is in the sandbox'),
          changes: z.array(
            z.object({
              path: z.string().describe('Relative to the folder'),
              kind: z.enum(['added', 'changed', 'deleted', 'renamed']),
              from: z.string().optional().describe('For a rename: the old path'),
              size: z.number().int().optional().describe('Bytes, as your code left it'),
              conflict: z.string().optional().describe('The person changed this file too: they choose'),
              refused: z.string().optional().describe('Why this change can never be applied (links, special files)'),
              diff: z.string().optional().describe(`Unified diff (at most ${DIFF_LINES} lines)`),
            }),
          ),
        }),
      )
      .describe('One entry per review folder'),
  },
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async (args, kit) => {
    const { folders } = await kit.call('changes.list', {
      ...(args.session_id ? { sessionId: args.session_id } : {}),
      diffLines: DIFF_LINES,
    });
    const structured = {
      folders: folders.map((f) => ({
        session_id: f.sessionId,
        path: f.mountPath,
        changes: f.changes.map((c) => ({
          path: c.path,
          kind: c.kind,
          ...(c.from ? { from: c.from } : {}),
          ...(c.after ? { size: c.after.size } : {}),
          ...(c.conflict ? { conflict: c.conflict } : {}),
          ...(c.refused ? { refused: c.refused.message } : {}),
          ...(c.diff ? { diff: c.diff } : {}),
        })),
      })),
    };
    const pending = folders.reduce((n, f) => n + f.changes.length, 0);
    const text =
      folders.length === 0
        ? 'No folder shared with "Changes need my OK" in your sessions: nothing waits for review.'
        : pending === 0
          ? `No changes wait for review in ${folders.map((f) => f.mountPath).join(', ')}.`
          : [
              `${pending} change${pending === 1 ? '' : 's'} wait for the person's OK in the Sandpit panel (they are not in the person's folder yet):`,
              ...folders.flatMap((f) => [
                `${f.mountPath} (session ${f.sessionId}):`,
                ...f.changes.flatMap((c) => [changeLine(c), ...(c.diff ? [c.diff] : [])]),
              ]),
            ].join('\n');
    return { structured, text };
  },
});
