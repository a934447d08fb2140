'use strict';
/*
 * The paths and errors of the workspace's file operations (workspace-fs.js): a request's path split and checked
 * (relative, no empty, "." or ".." component, no NUL, at most MAX_PATH bytes), the magic paths a component is
 * opened through (/proc/self/fd/<fd>/<name>, see workspace-fs.js), and each failure as an FsError with its code
 * and the words the host shows.
 */

const fs = require('fs');

const MAX_PATH = 4096; // bytes of a request's path

class FsError extends Error {
  constructor(code, message) {
    super(message);
    this.fsCode = code;
  }
}

/** The directory a descriptor refers to, and a name in it, as paths (see the header). */
const dirPath = (fd) => `/proc/self/fd/${fd}`;
const at = (fd, name) => `/proc/self/fd/${fd}/${name}`;

function closeQuietly(fd) {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

/** The components of a request's workspace-relative path; FsError INVALID_PATH when it is not one. */
function pathParts(path, allowRoot) {
  if (typeof path !== 'string') throw new FsError('INVALID_PATH', 'The path must be a string.');
  if (path === '') {
    if (allowRoot) return [];
    throw new FsError('INVALID_PATH', 'The path is empty: name a file in the workspace.');
  }
  if (path.includes('\0')) throw new FsError('INVALID_PATH', 'The path contains a NUL character.');
  const shown = path.slice(0, 200);
  if (path.startsWith('/'))
    throw new FsError('INVALID_PATH', `The path "${shown}" must be relative to the workspace (no leading "/").`);
  const size = Buffer.byteLength(path, 'utf8');
  if (size > MAX_PATH) throw new FsError('INVALID_PATH', `The path is ${size} bytes long, more than ${MAX_PATH}.`);
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..'))
    throw new FsError('INVALID_PATH', `The path "${shown}" has an empty, "." or ".." component.`);
  return parts;
}

const linkError = (shown) => new FsError('LINK', `"${shown}" is a symbolic link; links are never followed.`);

const ERRNO_CODES = {
  ELOOP: 'LINK',
  ENOENT: 'NOT_FOUND',
  ENOTDIR: 'NOT_A_DIRECTORY',
  EISDIR: 'NOT_A_FILE',
  ENXIO: 'NOT_A_FILE',
  EACCES: 'DENIED',
  EPERM: 'DENIED',
  EROFS: 'DENIED',
  ENOSPC: 'NO_SPACE',
  EDQUOT: 'NO_SPACE',
  EFBIG: 'NO_SPACE', // past RLIMIT_FSIZE, which the container sets to the workspace's size
  ENAMETOOLONG: 'INVALID_PATH',
};
const MESSAGES = {
  LINK: (s) => `"${s}" is a symbolic link; links are never followed.`,
  NOT_FOUND: (s) => `"${s}" does not exist.`,
  NOT_A_DIRECTORY: (s) => `"${s}" is not a directory.`,
  NOT_A_FILE: (s) => `"${s}" is not a regular file.`,
  DENIED: (s) => `"${s}": permission denied.`,
  NO_SPACE: (s) => `No space left on device (writing "${s}").`,
  INVALID_PATH: (s) => `"${s}": a name in the path is too long.`,
};

/** The FsError for a failed system call about `shown` (a path in the workspace), by its errno. */
function errnoError(error, shown) {
  if (error instanceof FsError) return error;
  const code = (error && ERRNO_CODES[error.code]) || 'IO';
  if (code !== 'IO') return new FsError(code, MESSAGES[code](shown));
  return new FsError('IO', `"${shown}": ${(error && error.message) || error}.`);
}

/**
 * The FsError for a failure to open or make `name` in the directory `dirFd`: a link is named as such
 * whatever the errno (O_DIRECTORY|O_NOFOLLOW on a link gives ENOTDIR, O_NOFOLLOW alone ELOOP).
 */
function componentError(error, dirFd, name, shown) {
  if (error instanceof FsError) return error;
  try {
    if (fs.lstatSync(at(dirFd, name)).isSymbolicLink()) return linkError(shown);
  } catch {
    // gone, or not even that
  }
  return errnoError(error, shown);
}

function kindOf(st) {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

module.exports = { FsError, MAX_PATH, dirPath, at, closeQuietly, pathParts, linkError, errnoError, componentError, kindOf };
