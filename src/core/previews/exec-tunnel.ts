import { Duplex, PassThrough, Writable } from 'node:stream';
import type { Logger } from '../log';
import { toErrorBody } from '../../shared/api/errors';
import type { Session } from '../sessions/session';
import { PROCESS_MARK } from '../sessions/session-processes';
import { WORKSPACE_DIR } from '../sandbox/sandbox-paths';
import { nothingListens } from './session-tunnel';
import { withImageInterpreter } from './forwarders';

/**
 * One TCP connection to a port on the sandbox's loopback, carried by an exec's own streams (its stdin and
 * stdout): where the sandbox shares no folder with the host (gVisor's attach channel, an engine elsewhere).
 * Slower to open (an exec each, ~0.1–0.2 s) than the socket tunnel; a keep-alive connection pays it once.
 * The forwarder says "+" once it reached the port (or exits 3), and is marked like start_process's leaders
 * so that the end of a run does not cut a preview's connections.
 */
const PYTHON = String.raw`
import os, socket, sys, threading
port = int(sys.argv[1])
app = None
for host in ('127.0.0.1', '::1'):
    try:
        app = socket.create_connection((host, port), timeout=10)
        break
    except OSError:
        pass
if app is None:
    sys.exit(3)
app.settimeout(None)
out = sys.stdout.buffer
out.write(b'+'); out.flush()
def up():
    while True:
        data = os.read(0, 262144)
        if not data:
            break
        app.sendall(data)
    try:
        app.shutdown(socket.SHUT_WR)
    except OSError:
        pass
threading.Thread(target=up, daemon=True).start()
while True:
    data = app.recv(262144)
    if not data:
        break
    out.write(data); out.flush()
`;

const NODE = String.raw`
const net = require('net');
const port = Number(process.argv[1]);
const tryHost = (hosts) => {
  const app = net.connect({ host: hosts[0], port });
  app.once('error', () => (hosts.length > 1 ? tryHost(hosts.slice(1)) : process.exit(3)));
  app.once('connect', () => { process.stdout.write('+'); process.stdin.pipe(app); app.pipe(process.stdout); app.on('close', () => process.exit(0)); });
};
tryHost(['127.0.0.1', '::1']);
`;

/** A Duplex over an exec's stdin and stdout, with the socket methods http.Agent calls (no-ops here). */
class ExecStream extends Duplex {
  constructor(
    private readonly input: PassThrough,
    private readonly abort: AbortController,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.input.write(chunk, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.input.end();
    done();
  }

  override _read(): void {
    // pushed by the exec's output
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.abort.abort();
    this.input.destroy();
    done(error);
  }

  setKeepAlive(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setTimeout(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}

export class ExecTunnel {
  constructor(
    private readonly session: Session,
    private readonly log: Logger,
  ) {}

  open(port: number): Promise<Duplex> {
    const input = new PassThrough();
    const abort = new AbortController();
    const stream = new ExecStream(input, abort);
    const script = withImageInterpreter(NODE, PYTHON, String(port));
    return new Promise<Duplex>((resolve, reject) => {
      let acked = false;
      const sink = new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          let data = chunk;
          if (!acked) {
            acked = true;
            resolve(stream);
            data = chunk.subarray(1);
          }
          if (data.length) stream.push(data);
          done();
        },
      });
      this.session.runtime.sandbox
        .exec(['sh', '-c', 'sh -c "$1"; exit $?', PROCESS_MARK, script], {
          workingDir: WORKSPACE_DIR,
          timeoutMs: 24 * 3_600_000,
          stdin: input,
          stdoutTo: sink,
          signal: abort.signal,
          maxOutputBytes: 4096,
        })
        .then(
          (r) => {
            if (!acked)
              reject(
                r.exitCode === 3
                  ? nothingListens(port)
                  : new Error(
                      `The preview could not reach port ${port} (exit code ${r.exitCode}${r.stderr ? `: ${r.stderr.trim().slice(0, 300)}` : ''}).`,
                    ),
              );
            stream.push(null);
          },
          (error: unknown) => {
            this.log.info('a preview connection over exec ended with an error', { error: toErrorBody(error).message });
            if (!acked) reject(error instanceof Error ? error : new Error(String(error)));
            stream.destroy();
          },
        );
    });
  }
}
