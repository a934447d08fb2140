import type { ListeningPort } from '../../shared/domain/preview';

/** Reads /proc/net/tcp and /proc/net/tcp6 text (as cat prints them) and returns the TCP ports in LISTEN state. */
export function parseListeningPorts(text: string): ListeningPort[] {
  const found = new Map<number, string>();
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // sl local_address rem_address st …; LISTEN is 0A
    if (fields.length < 4 || fields[3] !== '0A') continue;
    const [hexAddress, hexPort] = (fields[1] ?? '').split(':');
    const port = Number.parseInt(hexPort ?? '', 16);
    if (!Number.isInteger(port) || port <= 0) continue;
    const address = describeAddress(hexAddress ?? '');
    if (!found.has(port) || address === '0.0.0.0' || address === '::') found.set(port, address);
  }
  return [...found].map(([port, address]) => ({ port, address })).sort((a, b) => a.port - b.port);
}

function describeAddress(hex: string): string {
  if (hex.length === 8) {
    const bytes = hex
      .match(/../g)!
      .map((b) => Number.parseInt(b, 16))
      .reverse();
    return bytes.join('.');
  }
  if (/^0+$/.test(hex)) return '::';
  if (hex === '00000000000000000000000001000000') return '::1';
  if (hex.startsWith('0000000000000000FFFF0000')) return describeAddress(hex.slice(24));
  return 'an IPv6 address';
}
