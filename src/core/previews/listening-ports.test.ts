import { describe, expect, it } from 'vitest';
import { parseListeningPorts } from './listening-ports';

describe('the ports a sandbox listens on, from /proc/net/tcp{,6}', () => {
  it('keeps LISTEN sockets only, with the address they listen on', () => {
    const text = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000 10001        0 1 1',
      '   1: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000 10001        0 2 1',
      '   2: 0100007F:1F40 0100007F:9C40 01 00000000:00000000 00:00000000 00000000 10001        0 3 1',
      '  sl  local_address                         remote_address                        st',
      '   0: 00000000000000000000000001000000:1389 00000000000000000000000000000000:0000 0A 0',
    ].join('\n');
    expect(parseListeningPorts(text)).toEqual([
      { port: 3000, address: '127.0.0.1' },
      { port: 5001, address: '::1' },
      { port: 8000, address: '0.0.0.0' },
    ]);
  });
});
