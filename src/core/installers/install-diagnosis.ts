import type { InstallDiagnosis } from '../../shared/domain/packages';
import { MANAGER_IDS, PACKAGE_MANAGERS } from '../../shared/domain/package-managers';
import type { ManagerId } from '../../shared/domain/package-managers';

/** What went on when an install failed: the installer's own words, and what it was asked to do. */
export interface InstallAttempt {
  /** The manager whose installer failed (package-managers.ts). */
  manager: ManagerId;
  /** The installer's output (stdout and stderr, or the build log), newest last. */
  log: string;
  /** The packages it was asked for, as written. */
  packages: readonly string[];
  /** The index it reached for (pip's index URL, npm's registry); apt's mirrors are the base image's. */
  indexUrl?: string;
  /** Where a mirror or a proxy is set, in the person's words (Settings → Packages). */
  settingsHint?: string;
}

const UNREACHABLE = [
  /Failed to establish a new connection/i,
  /Temporary failure in name resolution/i,
  /Name or service not known/i,
  /Network is unreachable/i,
  /Connection refused/i,
  /NewConnectionError/i,
  /ProxyError|Tunnel connection failed|407 Proxy Authentication Required/i,
  /Max retries exceeded/i,
  /Could not fetch URL/i,
  /getaddrinfo (ENOTFOUND|EAI_AGAIN)/i,
  /\b(ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b/,
  /network request to .* failed/i,
  /Temporary failure resolving/i,
  /Could not resolve ['"]?[a-z0-9.-]+/i,
  /Read timed out/i,
];
const NO_SPACE = /No space left on device|ENOSPC/i;
const CONFLICT = /ResolutionImpossible|conflicting dependencies|ERESOLVE|Cannot install .* because these package versions have conflicting/i;
const NO_VERSION = /No matching version found for (@?[a-z0-9._~/-]+)|ETARGET/i;
/** What a manager's installer prints for a package it cannot find (the registry's words), matched all through a log. */
function missingPatterns(manager: ManagerId): RegExp[] {
  return PACKAGE_MANAGERS[manager].notFound.map((p) => new RegExp(p.source, `${p.flags.replace('g', '')}g`));
}
/** Every manager's first words for it, for a log whose own manager's words name nothing. */
const MISSING = MANAGER_IDS.map((m) => missingPatterns(m)[0]!);
const BUILD_FAILED = /Failed building wheel for ([A-Za-z0-9._-]+)|error: subprocess-exited-with-error|gyp ERR!/i;
const TIMED_OUT = /did not finish within/i;

/** Packages whose names every one of these says is missing, matched back to what the person wrote. */
function named(log: string, pattern: RegExp, packages: readonly string[]): string[] {
  const found = new Set<string>();
  for (const m of log.matchAll(pattern)) {
    const name = decodeURIComponent(m[1] ?? '').toLowerCase().replace(/[-_.]+/g, '-');
    const written = packages.find((p) => p.toLowerCase().replace(/[-_.]+/g, '-').startsWith(name));
    if (name) found.add(written ?? name);
  }
  return [...found];
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** The data-science packages the "Python (data)" preset already has. */
const DATA_PACKAGES = ['numpy', 'pandas', 'matplotlib'];

/**
 * Why an install failed, in the words of a person who has never heard of pip: the cause, which packages
 * it hit, and what to do. The installer's raw output stays where it was (the build log, the details).
 */
export function diagnoseInstall(attempt: InstallAttempt): InstallDiagnosis {
  const { log, packages, manager } = attempt;
  const entry = PACKAGE_MANAGERS[manager];
  const host = hostOf(attempt.indexUrl) ?? (entry.indexSetting === undefined ? "the base image's package mirror" : 'the package index');
  const where = attempt.settingsHint ?? 'Settings → Packages';
  const index = entry.indexName;
  // Every installer's network library's words, and the manager's own (R says it cannot access the repository's index).
  const unreachable = [...UNREACHABLE, ...(entry.unreachable ?? [])].some((p) => p.test(log));
  if (TIMED_OUT.test(log) && !unreachable) {
    return {
      cause: 'timeout',
      summary: 'The install took too long and was stopped.',
      affected: [...packages],
      fixes: ['Try again: a slow connection or a very large package can take longer than the time allowed.', `Use a closer mirror (${where}).`],
    };
  }
  if (unreachable) {
    const data = packages.filter((p) => DATA_PACKAGES.includes(p.toLowerCase().split(/[=<>!~[ ]/)[0] ?? ''));
    return {
      cause: 'unreachable',
      summary: `Sandpit could not reach the ${index} (${host}): this computer seems to be offline, or a proxy or firewall blocks it.`,
      affected: [...packages],
      fixes: [
        "Check this computer's internet connection, then build again.",
        `If your network needs a proxy or you have a mirror of the ${index}, set it in ${where}.`,
        ...(data.length > 0 ? [`Use the “Python (data)” environment: it already has ${DATA_PACKAGES.join(', ')}, with no download.`] : []),
      ],
    };
  }
  if (NO_SPACE.test(log)) {
    return { cause: 'disk', summary: 'There was not enough disk space to install the packages.', affected: [...packages], fixes: ['Free some disk space on this computer (or in Docker), then try again.'] };
  }
  const own = missingPatterns(manager).flatMap((pattern) => named(log, pattern, packages));
  const missing = own.length > 0 ? [...new Set(own)] : MISSING.flatMap((pattern) => named(log, pattern, packages));
  if (missing.length > 0) {
    return {
      cause: 'not-found',
      summary: `${missing.length === 1 ? `“${missing[0]}” was` : `${missing.map((m) => `“${m}”`).join(', ')} were`} not found on the ${index} (${host}), or not in a version that fits.`,
      affected: missing,
      fixes: ['Check the spelling of the name (the package page on the index shows it).', 'Remove the version, or pick one that exists.'],
    };
  }
  if (NO_VERSION.test(log)) {
    return { cause: 'not-found', summary: `A version that was asked for does not exist on the ${index} (${host}).`, affected: [...packages], fixes: ['Remove the version, or pick one that exists.'] };
  }
  if (CONFLICT.test(log)) {
    return {
      cause: 'conflict',
      summary: 'These packages need versions of each other that do not fit together.',
      affected: [...packages],
      fixes: ['Remove the versions you pinned, or pin versions that are known to work together.'],
    };
  }
  const failedBuild = BUILD_FAILED.exec(log);
  if (failedBuild) {
    const name = failedBuild[1] ? packages.find((p) => p.toLowerCase().startsWith(failedBuild[1]!.toLowerCase())) ?? failedBuild[1] : undefined;
    return {
      cause: 'build-failed',
      summary: `${name ? `“${name}”` : 'A package'} had to be compiled, and compiling it failed (it may need system libraries the image does not have).`,
      affected: name ? [name] : [...packages],
      fixes: ['Pick a version that has a ready-made build for this system, or add the system libraries it needs as apt packages.'],
    };
  }
  return {
    cause: 'unknown',
    summary: 'The install failed. The details show what the installer said.',
    affected: [...packages],
    fixes: ['Open the details to see the installer’s own words.'],
  };
}

/** One sentence for places with room for one: the cause and the first thing to do. */
export function diagnosisText(diagnosis: InstallDiagnosis): string {
  return `${diagnosis.summary} ${diagnosis.fixes[0] ?? ''}`.trim();
}
