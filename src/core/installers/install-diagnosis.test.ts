import { describe, expect, it } from 'vitest';
import { diagnoseInstall } from './install-diagnosis';

const PIP_OFFLINE = [
  "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/requests/",
  'ERROR: Could not find a version that satisfies the requirement requests (from versions: none)',
  'ERROR: No matching distribution found for requests',
].join('\n');

describe('diagnoseInstall', () => {
  it('says an unreachable index in plain words, blames every package, and offers the data preset for numpy', () => {
    const d = diagnoseInstall({ manager: 'pip', log: PIP_OFFLINE, packages: ['requests', 'numpy'], indexUrl: 'https://pypi.org/simple' });
    expect(d.cause).toBe('unreachable');
    expect(d.summary).toBe('Sandpit could not reach the package index (pypi.org): this computer seems to be offline, or a proxy or firewall blocks it.');
    expect(d.affected).toEqual(['requests', 'numpy']);
    expect(d.fixes.join(' ')).toMatch(/internet connection.*Settings → Packages.*“Python \(data\)”.*numpy, pandas, matplotlib/);
  });

  it.each([
    ['npm offline', 'npm', 'npm error code ENOTFOUND\nnpm error network request to https://registry.npmjs.org/lodash failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org', 'unreachable'],
    ['apt offline', 'apt', "Err:1 http://deb.debian.org/debian bookworm InRelease\n  Temporary failure resolving 'deb.debian.org'", 'unreachable'],
    ['proxy refusal', 'pip', "ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 403 Forbidden'))", 'unreachable'],
    ['a disk that is full', 'pip', 'ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device', 'disk'],
    ['versions that do not fit', 'pip', 'ERROR: Cannot install a==1 and b==2 because these package versions have conflicting dependencies.\nERROR: ResolutionImpossible', 'conflict'],
    ['a compile that fails', 'pip', 'error: subprocess-exited-with-error\n  ERROR: Failed building wheel for pycairo', 'build-failed'],
    ['a timeout', 'pip', 'the install did not finish within 600 s', 'timeout'],
    ['something else', 'pip', 'Segmentation fault', 'unknown'],
  ] as const)('recognises %s', (_what, manager, log, cause) => {
    expect(diagnoseInstall({ manager, log, packages: ['pycairo'] }).cause).toBe(cause);
  });

  it("reads R's own words: a package the repository does not have, a repository it cannot reach, a Debian build that is not there", () => {
    const missing = diagnoseInstall({
      manager: 'cran',
      log: "Warning: package ‘sandpitnosuch’ is not available for this version of R\nERROR: not installed: sandpitnosuch",
      packages: ['sandpitdemo', 'sandpitnosuch'],
      indexUrl: 'http://cran-repo:8080/',
    });
    expect(missing).toMatchObject({ cause: 'not-found', affected: ['sandpitnosuch'] });
    expect(missing.summary).toBe('“sandpitnosuch” was not found on the CRAN repository (cran-repo:8080), or not in a version that fits.');
    const offline = diagnoseInstall({
      manager: 'cran',
      log: "Warning: unable to access index for repository http://cran.test/src/contrib:\n  cannot open URL 'http://cran.test/src/contrib/PACKAGES'\nWarning: package ‘dplyr’ is not available for this version of R",
      packages: ['dplyr'],
      indexUrl: 'http://cran.test/',
    });
    expect(offline.cause).toBe('unreachable');
    expect(offline.summary).toBe('Sandpit could not reach the CRAN repository (cran.test): this computer seems to be offline, or a proxy or firewall blocks it.');
    // an environment's build: Debian's r-cran-* through apt, in apt's words about Debian's names
    const build = diagnoseInstall({ manager: 'apt', log: 'E: Unable to locate package r-cran-sandpitnosuch', packages: ['r-cran-sandpitnosuch'] });
    expect(build).toMatchObject({ cause: 'not-found', affected: ['r-cran-sandpitnosuch'] });
  });

  it('names only the packages the index does not have (pip, npm and apt)', () => {
    const pip = diagnoseInstall({ manager: 'pip', log: 'ERROR: No matching distribution found for sandpit-no-such-pkg', packages: ['numpy', 'sandpit_no_such_pkg==1.0'], indexUrl: 'http://pypi-index:8080/simple' });
    expect(pip).toMatchObject({ cause: 'not-found', affected: ['sandpit_no_such_pkg==1.0'] });
    expect(pip.summary).toBe('“sandpit_no_such_pkg==1.0” was not found on the package index (pypi-index:8080), or not in a version that fits.');
    const npm = diagnoseInstall({ manager: 'npm', log: 'npm error 404 Not Found - GET http://r/left-padd - Not found', packages: ['lodash', 'left-padd'] });
    expect(npm.affected).toEqual(['left-padd']);
    const apt = diagnoseInstall({ manager: 'apt', log: 'E: Unable to locate package libfoo-dev', packages: ['libfoo-dev', 'curl'] });
    expect(apt).toMatchObject({ cause: 'not-found', affected: ['libfoo-dev'] });
  });
});
