import type { KeptRecord } from './kept-store';

/**
 * What is wrong with a kept session's record read back from the data folder, in plain words, or undefined.
 * A record is input: its network must be the one its policy gives (none: no network; open: the engine's
 * default bridge), and a session on the package proxy is never kept — so `network: host`, a container
 * network or another policy's network is refused, as the contract would refuse it.
 */
export function keptRecordProblem(record: KeptRecord): string | undefined {
  if (record.networkPolicy === 'packages') return 'it says it uses the package proxy, and such a session is never kept';
  const wanted = record.networkPolicy === 'open' ? 'bridge' : undefined;
  if (record.network !== wanted) {
    return `it asks for the network "${record.network ?? 'none'}", not the one its policy "${record.networkPolicy}" gives (${wanted ?? 'none'})`;
  }
  return undefined;
}
