import type { Environment } from '../../shared/domain/environment';

/**
 * What a new session from an environment opens beyond its container, in the plain words of an
 * approval prompt: its network and the folders of this computer it gets. '' when it opens nothing.
 */
export function environmentOpenings(environment: Pick<Environment, 'network' | 'allowedHosts' | 'folders'>): string {
  const parts: string[] = [];
  if (environment.network === 'open') parts.push('it will have unrestricted network access');
  if (environment.network === 'packages') {
    const hosts = environment.allowedHosts ?? [];
    parts.push(hosts.length > 0 ? `it may download packages and reach ${hosts.join(', ')}` : 'it may download packages (no other network)');
  }
  const folders = environment.folders ?? [];
  const changes = folders.filter((f) => f.mode === 'rw').map((f) => f.hostPath);
  const reads = folders.filter((f) => f.mode !== 'rw').map((f) => f.hostPath);
  if (changes.length > 0) parts.push(`it can change ${changes.join(', ')} on this computer`);
  if (reads.length > 0) parts.push(`it can read ${reads.join(', ')} on this computer`);
  return parts.length === 0 ? '' : `; ${parts.join('; ')}`;
}
