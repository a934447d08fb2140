import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { UsableSecret } from './secret-store';

/** Hop-by-hop headers: never passed on (RFC 9110 §7.6.1), plus the proxy's own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** What a secret puts in a header: the template with the value, or `Basic base64(user:value)`. */
function rendered(secret: UsableSecret): { header: string; value: string } {
  if (secret.sendAs.kind === 'basic') return { header: 'authorization', value: `Basic ${Buffer.from(`${secret.sendAs.username}:${secret.value}`, 'utf8').toString('base64')}` };
  return { header: secret.sendAs.header.toLowerCase(), value: secret.sendAs.template.split('{value}').join(secret.value) };
}

/** A Basic credential whose password (or user) is a placeholder, re-encoded with the value; undefined when it carries none. */
function basicWithValue(header: string, secret: UsableSecret): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  if (!decoded.includes(secret.placeholder)) return undefined;
  return `Basic ${Buffer.from(decoded.split(secret.placeholder).join(secret.value), 'utf8').toString('base64')}`;
}

/**
 * The headers sent upstream for a request to one of these secrets' host: hop-by-hop headers dropped, each
 * placeholder replaced by its value wherever it appears (in a Basic credential too), and a secret's own header
 * added when the request did not carry it. Returns the names of the secrets that went in.
 * Values cannot hold CR, LF or NUL (the schema refuses them), so nothing here can start a new header.
 */
export function headersWithSecrets(incoming: IncomingHttpHeaders, secrets: readonly UsableSecret[]): { headers: OutgoingHttpHeaders; used: string[] } {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers[name] = value;
  }
  const used = new Set<string>();
  for (const secret of secrets) {
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string' && !Array.isArray(value)) continue;
      const swap = (text: string): string => {
        const basic = name === 'authorization' ? basicWithValue(text, secret) : undefined;
        if (basic !== undefined) {
          used.add(secret.name);
          return basic;
        }
        if (!text.includes(secret.placeholder)) return text;
        used.add(secret.name);
        return text.split(secret.placeholder).join(secret.value);
      };
      headers[name] = Array.isArray(value) ? value.map(swap) : swap(value);
    }
    const own = rendered(secret);
    if (!used.has(secret.name) && headers[own.header] === undefined) {
      headers[own.header] = own.value;
      used.add(secret.name);
    }
  }
  return { headers, used: [...used] };
}
