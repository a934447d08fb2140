'use strict';
/*
 * The files an execution created or changed under the workspace: regular files only (no symlinks or
 * special files), compared by size and mtime before and after it ran, at most MAX_FILES of them, after
 * looking at no more than MAX_WALK directory entries.
 */

const fs = require('fs');
const path = require('path');
const { MAX_WALK, MAX_FILES } = require('./limits');
const { noFds } = require('./fds');

/** The mount points found under each root (read once: see mountPointsUnder). */
const mountsByRoot = new Map();

/**
 * Absolute paths of the file systems mounted below `root` (the session's shared folders), from
 * /proc/self/mountinfo: the scan leaves them out, so a large shared folder never hides the files a run made in
 * the workspace, and is never walked at every run. Read once per root: the mounts of a container are fixed when
 * it starts (a folder change starts a new one; the sandbox user may not mount, and a mount made in another mount
 * namespace is not in this process's), and the kernel builds the file anew at every read (the slowest step of a
 * run's scan when it was read twice per run).
 */
function mountPointsUnder(root) {
  const known = mountsByRoot.get(root);
  if (known) return known;
  let text;
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'latin1');
  } catch (error) {
    if (noFds(error)) throw error;
    return new Set();
  }
  const found = new Set();
  const prefix = `${root.replace(/\/+$/, '')}/`;
  for (const line of text.split('\n')) {
    const raw = line.split(' ')[4];
    if (raw === undefined) continue;
    // spaces, tabs, newlines and backslashes are written as \ooo; the bytes are the path's own
    const bytes = Buffer.from(
      raw.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8))),
      'latin1',
    );
    const mount = bytes.toString('utf8');
    if (mount.startsWith(prefix)) found.add(mount);
  }
  mountsByRoot.set(root, found);
  return found;
}

/** {files: Map(relative path -> {size, sig}), complete} of the regular files under `root` (nothing below another
 * mount: shared folders are left out). A shortage of descriptors is thrown (noFds), never taken for a folder that
 * cannot be read: the caller frees the reserve's and scans again (fd-reserve.js). */
function snapshotFiles(root) {
  const files = new Map();
  let seen = 0;
  const stack = [''];
  const mounts = mountPointsUnder(root);
  while (stack.length) {
    const rel = stack.pop();
    let entries;
    try {
      entries = fs.readdirSync(rel ? path.join(root, rel) : root, { withFileTypes: true });
    } catch (error) {
      if (noFds(error)) throw error;
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++seen > MAX_WALK) return { files, complete: false };
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!mounts.has(path.join(root, p))) stack.push(p);
      } else if (entry.isFile()) {
        try {
          const st = fs.lstatSync(path.join(root, p), { bigint: true });
          if (st.isFile()) files.set(p, { size: Number(st.size), sig: `${st.size}:${st.mtimeNs}` });
        } catch {
          // gone
        }
      }
    }
  }
  return { files, complete: true };
}

/** `files` and `filesTruncated` of `done`, from the snapshots before and after an execution. */
function changedFiles(before, after) {
  const changed = [...after.files.keys()]
    .filter((p) => !before.files.has(p) || before.files.get(p).sig !== after.files.get(p).sig)
    .sort();
  return {
    files: changed.slice(0, MAX_FILES).map((p) => ({ path: p, size: after.files.get(p).size })),
    filesTruncated: changed.length > MAX_FILES || !after.complete || !before.complete,
  };
}

module.exports = { snapshotFiles, changedFiles, mountPointsUnder };
