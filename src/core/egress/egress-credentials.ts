import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SandpitError } from '../../shared/api/errors';

/** What an owner (a session id, a build's id) may look like: it is the user name of a proxy URL, so URL-safe. */
const OWNER = /^[A-Za-z0-9._-]{1,64}$/;
/** 256 random bits per credential. */
const SECRET_BYTES = 32;
const BASIC = /^Basic\s+([A-Za-z0-9+/=]{1,512})$/i;

export interface EgressCredentials {
  /** The secret of `owner`'s credential: issued (256 random bits, base64url) on first use, the same until revoked. */
  issue(owner: string): string;
  /** Forgets `owner`'s credential: requests carrying it are refused from now on. True when there was one. */
  revoke(owner: string): boolean;
  /**
   * The owner a `Proxy-Authorization: Basic base64("<owner>:<secret>")` header was issued to, or undefined
   * when it names no live credential. The secret is compared in constant time (fixed-length digests).
   */
  verify(header: string | undefined): string | undefined;
  /** Credentials alive now. */
  count(): number;
  /** Revokes every credential. */
  clear(): void;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The user name and password of a Basic Proxy-Authorization header, or undefined when it is not one. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  const match = typeof header === 'string' ? BASIC.exec(header.trim()) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * The egress proxy's credentials: one random secret per owner, handed out only inside the proxy URLs
 * Sandpit gives its own containers. The owner is bound to the secret, so a request is attributed to
 * the owner its secret was issued to, never to a name the client merely sends.
 */
export function egressCredentials(): EgressCredentials {
  const secrets = new Map<string, { secret: string; digest: Buffer }>();
  // Compared against when the claimed owner has no credential, so both paths do the same work.
  const decoy = digest(randomBytes(SECRET_BYTES).toString('base64url'));
  return {
    issue: (owner: string): string => {
      if (!OWNER.test(owner)) throw new SandpitError('INTERNAL', `Not a valid egress credential owner: ${JSON.stringify(owner.slice(0, 80))}.`);
      let entry = secrets.get(owner);
      if (!entry) {
        const secret = randomBytes(SECRET_BYTES).toString('base64url');
        entry = { secret, digest: digest(secret) };
        secrets.set(owner, entry);
      }
      return entry.secret;
    },
    revoke: (owner: string): boolean => secrets.delete(owner),
    verify: (header: string | undefined): string | undefined => {
      const claimed = basicCredentials(header);
      if (!claimed) return undefined;
      const entry = OWNER.test(claimed.user) ? secrets.get(claimed.user) : undefined;
      const same = timingSafeEqual(digest(claimed.password), entry?.digest ?? decoy);
      return same && entry !== undefined ? claimed.user : undefined;
    },
    count: (): number => secrets.size,
    clear: (): void => secrets.clear(),
  };
}
