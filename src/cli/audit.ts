import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { toErrorBody } from '../shared/api/errors';
import { auditExportFormatSchema, auditFiltersSchema } from '../shared/domain/audit';
import type { AuditEntry, AuditExportFormat, AuditFilters } from '../shared/domain/audit';
import { openAuditDatabase } from '../core/audit/audit-database';
import { exportChunks } from '../core/audit/audit-export';
import { iterateAuditRows } from '../core/audit/audit-query';
import { verifyAuditChain } from '../core/audit/audit-verify';
import { resolveHome } from '../core/home';

export const AUDIT_HELP = `Usage:
  sandpit audit verify
      check the audit log's hash chain; exit 0 when intact, 1 naming the first broken row
  sandpit audit export --format jsonl|csv [--out FILE]
                       [--client NAME] [--session ID] [--status STATUS] [--from TIME] [--to TIME] [--search TEXT]
      every row (oldest first) to stdout, or to FILE (created 0600)
`;

export interface AuditCliOptions {
  /** The data folder; default: $SANDPIT_HOME, else the OS's app-data folder. */
  home?: string;
  stdout?: Writable;
  stderr?: Writable;
}

/** `sandpit audit …`: reads $SANDPIT_HOME/audit.db without changing it (a running Sandpit may keep writing). */
export async function runAudit(args: string[], options: AuditCliOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const path = join(options.home ?? resolveHome(), 'audit.db');
  const [command, ...rest] = args;
  if (command !== 'verify' && command !== 'export') {
    stderr.write(command === undefined ? AUDIT_HELP : `Unknown audit command "${command}".\n\n${AUDIT_HELP}`);
    return 2;
  }
  let parsed: ExportArgs | undefined;
  try {
    if (command === 'export') parsed = parseExportArgs(rest);
    else parseArgs({ args: rest, options: {} });
  } catch (error) {
    stderr.write(`${toErrorBody(error).message}\n\n${AUDIT_HELP}`);
    return 2;
  }
  if (!existsSync(path)) {
    stderr.write(`No audit log at ${path}: Sandpit has not run with this data folder yet, or the file was removed.\n`);
    return 1;
  }
  const db = openAuditDatabase(path, { readOnly: true });
  try {
    if (parsed === undefined) {
      const result = verifyAuditChain(db);
      const pruned = result.pruned ? ` (${result.pruned} older rows were removed by the retention setting)` : '';
      if (result.ok) {
        stdout.write(`Audit log OK: ${result.rows} rows, the hash chain is intact${pruned}.\n${path}\n`);
        return 0;
      }
      stdout.write(`Audit log BROKEN${result.brokenAt === undefined ? '' : ` at row ${result.brokenAt}`}: ${result.reason ?? 'the chain does not hold'}\n${path}\n`);
      return 1;
    }
    const filters = parsed.filters;
    let rows = 0;
    function* entries(): Generator<AuditEntry> {
      for (const entry of iterateAuditRows(db, { filters })) {
        rows += 1;
        yield entry;
      }
    }
    const source = Readable.from(exportChunks(parsed.format, entries()));
    if (parsed.out === undefined) {
      // stdout stays open (it is not ours to end); pipeline waits for it to take every chunk. A reader that
      // stops early (`| head`) is not an error.
      await pipeline(source, stdout, { end: false }).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
      });
      return 0;
    }
    await pipeline(source, createWriteStream(parsed.out, { mode: 0o600 }));
    stdout.write(`Exported ${rows} rows to ${parsed.out}.\n`);
    return 0;
  } finally {
    db.close();
  }
}

interface ExportArgs {
  format: AuditExportFormat;
  out?: string;
  filters: AuditFilters;
}

function parseExportArgs(args: string[]): ExportArgs {
  const { values } = parseArgs({
    args,
    options: {
      format: { type: 'string' },
      out: { type: 'string' },
      client: { type: 'string' },
      session: { type: 'string' },
      status: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      search: { type: 'string' },
    },
  });
  const format = auditExportFormatSchema.safeParse(values.format);
  if (!format.success) throw new Error(`--format must be jsonl or csv${values.format === undefined ? '' : `, not "${values.format}"`}.`);
  const filters = auditFiltersSchema.safeParse({ client: values.client, sessionId: values.session, status: values.status, from: values.from, to: values.to, search: values.search });
  if (!filters.success) throw new Error(filters.error.issues.map((i) => `--${i.path.join('.') === 'sessionId' ? 'session' : i.path.join('.')}: ${i.message}`).join('; '));
  return { format: format.data, ...(values.out === undefined ? {} : { out: values.out }), filters: filters.data };
}
