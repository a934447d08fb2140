import type { AuditEntry } from '../../shared/domain/audit';

/** A notebook `error` output. */
export interface NotebookErrorOutput {
  output_type: 'error';
  ename: string;
  evalue: string;
  traceback: string[];
}

const EXCEPTION_NAME = /^[A-Za-z_$][\w$.]*$/;

const STATUS_NAMES: Record<string, string> = {
  timeout: 'Timeout',
  interrupted: 'Interrupted',
  oom: 'OutOfMemory',
  killed: 'Killed',
  denied: 'Denied',
  failed: 'Failed',
  error: 'Error',
};

/**
 * The error output of a row that did not end well, or undefined for one that did. The audit row keeps a run's
 * error as "Name: value" followed by the traceback (audit-outcome.ts): the name and the first line of the value
 * come from that first line, the traceback is every line after it. A row whose message has no such first line
 * (a timeout's note, a refused call) is named after its status, with its error code when it has one.
 */
export function errorOutput(entry: AuditEntry): NotebookErrorOutput | undefined {
  if (entry.status === 'ok' || entry.status === 'running') return undefined;
  const message = entry.errorMessage ?? '';
  const [first = '', ...rest] = message.split('\n');
  const colon = first.indexOf(': ');
  const name = colon > 0 ? first.slice(0, colon) : first.endsWith(':') ? first.slice(0, -1) : first;
  if (entry.method !== 'packages.install' && entry.status === 'error' && EXCEPTION_NAME.test(name) && name !== '') {
    const traceback = rest.filter((line, index) => line !== '' || index < rest.length - 1);
    return { output_type: 'error', ename: name, evalue: colon > 0 ? first.slice(colon + 2) : '', traceback: traceback.length > 0 ? traceback : [first] };
  }
  if (entry.status === 'error' && message === '') return undefined;
  const ename = entry.errorCode ?? STATUS_NAMES[entry.status] ?? entry.status;
  return { output_type: 'error', ename, evalue: message, traceback: message === '' ? [] : message.split('\n') };
}
