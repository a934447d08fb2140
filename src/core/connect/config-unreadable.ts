import { SandpitError } from '../../shared/api/errors';

/** One assistant settings file, parsed: read Sandpit's entry, or the file's whole new text with it set or removed. */
export interface ServersEdit {
  entry(name: string): unknown;
  set(name: string, entry: Record<string, unknown>): string;
  remove(name: string): string;
}

/**
 * An assistant's settings file that does not parse. It is never overwritten: the message says where it
 * breaks and how to go on (CONFLICT: the file, not the request, has to change).
 */
export class ConfigUnreadableError extends SandpitError {
  constructor(
    readonly path: string,
    readonly where: string,
  ) {
    super(
      'CONFLICT',
      `Sandpit cannot read ${path} (${where}), so it left the file as it is. ` +
        'Open it in a text editor, fix that spot (or open the app once so it writes a fresh one), then press Connect again.',
      { path, where },
    );
  }
}
