import { PACKAGES_DIR } from '../sandbox/sandbox-paths';
import { runLine } from './dockerfile-lines';
import { checkWith, installWithHelper } from './helper-install';
import type { Installer } from './helper-install';

/**
 * Every R that Sandpit starts itself runs with --vanilla: no site or user profile, no .Renviron and no
 * .RData, so nothing of the workspace (the session's HOME) runs; the library path comes from the image
 * (R_LIBS_USER: the session's package store first) and what the script adds.
 */
const RSCRIPT = ['Rscript', '--vanilla'];

/**
 * install.packages() into the session's package store from the repository given, with the dependencies it
 * needs (Depends, Imports, LinkingTo) that are not on the library path yet. R only warns when a package is
 * not available, does not install or the repository cannot be reached, and exits 0: those warnings are errors
 * here, each said on a line of its own ("ERROR: …"), and the status is 1 unless every package asked for is in
 * the store afterwards. (Other warnings, such as a repository without PACKAGES.rds, are only R's notes.)
 * argv: REPOSITORY STORE NAME…
 */
const INSTALL_SCRIPT = [
  'args <- commandArgs(trailingOnly = TRUE)',
  'repo <- args[[1]]; lib <- args[[2]]; pkgs <- args[-(1:2)]',
  '.libPaths(c(lib, .libPaths()))',
  'options(warn = 1, timeout = 600)',
  'problems <- character(0)',
  'FAILED <- "is not available|had non-zero exit status|unable to access index|download of package .* failed|cannot open URL .*tar.gz"',
  'withCallingHandlers(',
  '  utils::install.packages(pkgs, lib = lib, repos = repo, dependencies = NA, type = "source"),',
  '  warning = function(w) if (grepl(FAILED, conditionMessage(w))) problems <<- c(problems, conditionMessage(w))',
  ')',
  'missing <- pkgs[!file.exists(file.path(lib, pkgs, "DESCRIPTION"))]',
  'for (p in problems) cat("ERROR: ", gsub("\\\\s+", " ", p), "\\n", sep = "", file = stderr())',
  'if (length(missing) > 0) cat("ERROR: not installed: ", paste(missing, collapse = ", "), "\\n", sep = "", file = stderr())',
  'if (length(problems) > 0 || length(missing) > 0) quit(status = 1)',
].join('\n');

/** The lines of R's output that say what went wrong. */
export function cranError(stderr: string, stdout: string): string {
  const lines = `${stdout}\n${stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => l.startsWith('ERROR:') || l.startsWith('Error'));
  return (errors.length > 0 ? errors.slice(-3) : lines.slice(-3)).join(' ').slice(0, 2_000) || 'R failed without a message';
}

// Reads each package's DESCRIPTION (never loads its code) from R's library path: the session's package
// store first, then the image's own libraries (Debian's r-cran-* packages, R's recommended ones).
const CHECK_SCRIPT = [
  'out <- vapply(commandArgs(trailingOnly = TRUE), function(p) {',
  '  v <- suppressWarnings(utils::packageDescription(p, fields = "Version"))',
  '  if (is.character(v) && !is.na(v)) paste0("\\"", v, "\\"") else "null"',
  '}, "")',
  'cat("{", paste0("\\"", names(out), "\\": ", out, collapse = ", "), "}\\n", sep = "")',
].join('\n');

/** install.packages() in a helper, into the session's package store (first on R's library path). */
export const cranInstaller: Installer = {
  install: (sandbox, specs, settings, log) =>
    installWithHelper(sandbox, specs, settings, log, (batch) => ({
      cmd: [...RSCRIPT, '-e', INSTALL_SCRIPT, settings.cranRepositoryUrl, PACKAGES_DIR, ...batch.map((s) => s.name)],
      // R's own temporary files and its build of each package go to /tmp (the root fs is read-only).
      env: { TMPDIR: '/tmp', R_LIBS_USER: PACKAGES_DIR },
      describeError: cranError,
      manager: 'cran',
      indexUrl: settings.cranRepositoryUrl,
    })),
  check: (sandbox, specs) => checkWith(sandbox, [...RSCRIPT, '-e', CHECK_SCRIPT], specs),
};

/** Debian's name of an R package: r-cran- and the name in lowercase (Debian's R policy). */
export function debianName(name: string): string {
  return `r-cran-${name.toLowerCase()}`;
}

/** cran's lines of an environment's Dockerfile: Debian's build of each package, from the base image's own mirrors. */
export function cranDockerfile(names: readonly string[]): string[] {
  return [
    runLine(['apt-get', 'update']),
    runLine(['apt-get', 'install', '-y', '--no-install-recommends', ...names.map(debianName)]),
    runLine(['rm', '-rf', '/var/lib/apt/lists']),
  ];
}
