import type { AuditEntry } from '../../shared/domain/audit';

/** A notebook `error` output. */
export interface NotebookErrorOutput {
  output_type: 'error';
  ename: string;
  evalue: string;
  traceback: string[];
}

const EXCEPTION_NAME = /^[A-Za-z_$][\w$.]*$/;
/** Where Python's formatted traceback starts: what is before it is "Name: value", however many lines the value has. */
const PYTHON_TRACEBACK = '\nTraceback (most recent call last):\n';

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
 * error as "Name: value" followed by the traceback (audit-outcome.ts): with a Python traceback the name and the
 * value (of any number of lines) are what comes before "Traceback (most recent call last):"; otherwise the name
 * and value come from the first line and the traceback is every line after it. A row whose message has no such first line
 * (a timeout's note, a refused call) is named after its status, with its error code when it has one.
 */
export function errorOutput(entry: AuditEntry): NotebookErrorOutput | undefined {
  if (entry.status === 'ok' || entry.status === 'running') return undefined;
  const message = entry.errorMessage ?? '';
  const python = message.indexOf(PYTHON_TRACEBACK);
  if (entry.method !== 'packages.install' && entry.method !== 'packages.check' && entry.status === 'error' && python > 0) {
    const head = message.slice(0, python);
    const colon = head.indexOf(': ');
    const name = colon > 0 ? head.slice(0, colon) : head;
    if (EXCEPTION_NAME.test(name)) {
      const traceback = message.slice(python + 1).replace(/\n$/, '').split('\n');
      return { output_type: 'error', ename: name, evalue: colon > 0 ? head.slice(colon + 2) : '', traceback };
    }
  }
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
