import { SandpitError } from '../../shared/api/errors';

/** Where a session's files live inside its container. */
export const WORKSPACE_ROOT = '/workspace';
/** Longest accepted path, in UTF-8 bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** Longest accepted path segment, in UTF-8 bytes (Linux NAME_MAX). */
export const MAX_SEGMENT_BYTES = 255;

export interface NormalizeOptions {
  /** Accept '', '.' and './' as the workspace root itself (returned as ''). Default false. */
  allowRoot?: boolean;
}

// C0 controls (NUL included), DEL and the C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/u;
const DRIVE_LETTER = /^[A-Za-z]:/;

/** A short, printable rendering of a (possibly hostile) path for error messages. */
function shown(input: string): string {
  const clipped = input.length > 200 ? `${input.slice(0, 200)}…` : input;
  return JSON.stringify(clipped);
}

function refusePath(input: string, why: string): never {
  throw new SandpitError('INVALID_INPUT', `Path ${shown(input)} is not allowed: ${why}`, {
    path: input.slice(0, 4096),
  });
}

/**
 * Validates a user-given path relative to /workspace and returns its canonical form
 * (`a/b/c`: no leading or trailing slash, no `.` segments, no duplicate slashes).
 * Refuses with INVALID_INPUT: empty paths, NUL and other control characters, absolute paths
 * (`/x`, `C:\x`, `C:x`), backslashes, any `..` segment, paths over 4096 bytes and segments over 255 bytes.
 */
export function normalizeRelativePath(input: string, options: NormalizeOptions = {}): string {
  return normalize(input, input, options);
}

/** `original` is what the user typed (for messages); `input` is the part being validated. */
function normalize(input: string, original: string, options: NormalizeOptions): string {
  if (typeof input !== 'string') throw new SandpitError('INVALID_INPUT', 'Path must be a string');
  const refuse = (why: string): never => refusePath(original, why);
  if (input.includes('\0')) refuse('it contains a NUL byte');
  if (CONTROL_CHARS.test(input)) refuse('it contains a control character');
  if (Buffer.byteLength(input, 'utf8') > MAX_PATH_BYTES) refuse(`it is longer than ${MAX_PATH_BYTES} bytes`);
  if (input.includes('\\')) refuse('backslashes are not allowed (use / between folders)');
  if (input.startsWith('/')) refuse('it is absolute (give a path relative to /workspace)');
  if (DRIVE_LETTER.test(input)) refuse('it looks like a drive path (give a path relative to /workspace)');

  const segments: string[] = [];
  for (const segment of input.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') refuse('it contains a ".." segment');
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) {
      refuse(`a segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
    }
    segments.push(segment);
  }

  const result = segments.join('/');
  if (result === '' && options.allowRoot !== true) {
    refuse(original === '' ? 'it is empty' : 'it names the workspace itself, not a file in it');
  }
  return result;
}

/** `a/b` → `/workspace/a/b` (the path is validated first; '' with allowRoot → `/workspace`). */
export function workspacePath(relative: string, options: NormalizeOptions = {}): string {
  const normalized = normalizeRelativePath(relative, options);
  return normalized === '' ? WORKSPACE_ROOT : `${WORKSPACE_ROOT}/${normalized}`;
}

/**
 * The inverse of workspacePath, lenient about what the user typed: `/workspace/a/b`, `a/b` and
 * `./a//b` all give `a/b`. `/workspace` itself is the root ('' when allowRoot, refused otherwise).
 * Any other absolute path is refused.
 */
export function fromWorkspacePath(input: string, options: NormalizeOptions = {}): string {
  if (typeof input === 'string') {
    if (input === WORKSPACE_ROOT) return normalize('', input, options);
    if (input.startsWith(`${WORKSPACE_ROOT}/`)) {
      const rest = input.slice(WORKSPACE_ROOT.length + 1);
      // `/workspace//etc` must not become the absolute `/etc`: strip every leading slash of the rest.
      return normalize(rest.replace(/^\/+/, ''), input, options);
    }
  }
  return normalizeRelativePath(input, options);
}
