'use strict';
/*
 * The files an execution created or changed under the workspace: regular files only (no symlinks or
 * special files), compared by size and mtime before and after it ran, at most MAX_FILES of them, after
 * looking at no more than MAX_WALK directory entries.
 */

const fs = require('fs');
const path = require('path');
const { MAX_WALK, MAX_FILES } = require('./limits');

/** {files: Map(relative path -> {size, sig}), complete} of the regular files under `root`. */
function snapshotFiles(root) {
  const files = new Map();
  let seen = 0;
  const stack = [''];
  while (stack.length) {
    const rel = stack.pop();
    let entries;
    try {
      entries = fs.readdirSync(rel ? path.join(root, rel) : root, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++seen > MAX_WALK) return { files, complete: false };
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) stack.push(p);
      else if (entry.isFile()) {
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

module.exports = { snapshotFiles, changedFiles };
