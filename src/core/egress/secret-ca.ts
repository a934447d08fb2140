import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import forge from 'node-forge';

/** The key and certificate of one host the proxy answers for, in PEM. */
export interface LeafCertificate {
  key: string;
  cert: string;
}

/**
 * The certificate authority of one Sandpit instance: made in memory when the proxy starts (a new instance, or a
 * rotation, is a new CA), its private key never written anywhere nor given to a sandbox. Sandboxes that may use
 * a secret trust its certificate (the bundle); the proxy presents a leaf it signs for a secret's host only.
 */
export interface SecretAuthority {
  /** The CA certificate (PEM): public. */
  readonly certificate: string;
  /** The system CAs (Node's Mozilla bundle) plus this CA, in PEM: what a sandbox trusts. */
  bundle(): string;
  /** A certificate for `host`, signed by the CA (made once per host, then cached). */
  leafFor(host: string): LeafCertificate;
}

/**
 * The authority `make` gives, asked for only when it is used (a leaf for an intercepted host, the bundle of a session
 * that may use secrets): making one generates two RSA keys, 0.1–0.3 s of the event loop on a slow machine, which the
 * proxy's start (behind a client's first call) should not pay when no secret is ever used.
 */
export function lazyAuthority(make: () => SecretAuthority): SecretAuthority {
  return {
    get certificate(): string {
      return make().certificate;
    },
    bundle: (): string => make().bundle(),
    leafFor: (host: string): LeafCertificate => make().leafFor(host),
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

function serial(): string {
  // Positive: the first bit clear.
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

function rsaPair(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; pem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const key = forge.pki.privateKeyFromPem(pem);
  return { privateKey: key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e), pem };
}

export function createSecretAuthority(name = 'Sandpit secrets CA'): SecretAuthority {
  const ca = rsaPair();
  const caCert = forge.pki.createCertificate();
  caCert.publicKey = ca.publicKey;
  caCert.serialNumber = serial();
  const now = Date.now();
  caCert.validity.notBefore = new Date(now - DAY_MS);
  caCert.validity.notAfter = new Date(now + 825 * DAY_MS);
  const subject = [{ name: 'commonName', value: `${name} ${randomBytes(4).toString('hex')}` }, { name: 'organizationName', value: 'Sandpit' }];
  caCert.setSubject(subject);
  caCert.setIssuer(subject);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(ca.privateKey, forge.md.sha256.create());
  const certificate = forge.pki.certificateToPem(caCert);
  // One leaf key for every host (made once): each leaf is still its own certificate, bound to its one name.
  const leafKey = rsaPair();
  const leaves = new Map<string, LeafCertificate>();

  const leafFor = (host: string): LeafCertificate => {
    const known = leaves.get(host);
    if (known) return known;
    const cert = forge.pki.createCertificate();
    cert.publicKey = leafKey.publicKey;
    cert.serialNumber = serial();
    cert.validity.notBefore = new Date(Date.now() - DAY_MS);
    cert.validity.notAfter = new Date(Date.now() + 397 * DAY_MS);
    cert.setSubject([{ name: 'commonName', value: host.slice(0, 64) }]);
    cert.setIssuer(caCert.subject.attributes);
    cert.setExtensions([
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [isIP(host) ? { type: 7, ip: host } : { type: 2, value: host }] },
    ]);
    cert.sign(ca.privateKey, forge.md.sha256.create());
    const leaf = { key: leafKey.pem, cert: `${forge.pki.certificateToPem(cert)}${certificate}` };
    leaves.set(host, leaf);
    return leaf;
  };
  return {
    certificate,
    bundle: (): string => `${[...rootCertificates, certificate.trim()].join('\n')}\n`,
    leafFor,
  };
}
