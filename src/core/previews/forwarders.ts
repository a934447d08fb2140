/**
 * The forwarder that runs inside a sandbox for one previewed port, as a hidden long-running process: it
 * connects to the host's tunnel socket (in the session's agent folder), says which port it serves, and for
 * each `{"open": id}` the host sends, connects to that port on the sandbox's own loopback and opens a data
 * connection of its own to the host, naming the id; then it copies bytes both ways. It never listens, and
 * it connects nowhere but the sandbox's loopback and the host's socket. Standard library only.
 * argv: SOCKET PORT SECRET.
 */
const PYTHON = String.raw`
import json, socket, sys, threading
path, port, secret = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def hello(role, **more):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    more.update(secret=secret, role=role)
    s.sendall((json.dumps(more) + '\n').encode())
    return s
def pipe(a, b):
    try:
        while True:
            data = a.recv(262144)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass
def local():
    for host in ('127.0.0.1', '::1'):
        try:
            return socket.create_connection((host, port), timeout=10)
        except OSError as error:
            last = error
    raise last
def serve(cid):
    try:
        app = local()
        app.settimeout(None)
        app.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError as error:
        with lock:
            control.sendall((json.dumps({'refused': cid, 'why': str(error)}) + '\n').encode())
        return
    try:
        host = hello('data', conn=cid)
    except OSError:
        app.close()
        return
    back = threading.Thread(target=pipe, args=(app, host), daemon=True)
    back.start()
    pipe(host, app)
    back.join()
    app.close()
    host.close()
control = hello('control', port=port)
lock = threading.Lock()
buf = b''
while True:
    data = control.recv(4096)
    if not data:
        break
    buf += data
    while b'\n' in buf:
        line, buf = buf.split(b'\n', 1)
        threading.Thread(target=serve, args=(json.loads(line)['open'],), daemon=True).start()
`;

const NODE = String.raw`
const net = require('net');
const [path, portText, secret] = process.argv.slice(1);
const port = Number(portText);
const hello = (role, more) => { const s = net.connect(path); s.write(JSON.stringify({ ...more, secret, role }) + '\n'); return s; };
const local = (hosts, done) => {
  const app = net.connect({ host: hosts[0], port });
  app.once('connect', () => { app.setNoDelay(true); done(null, app); });
  app.once('error', (error) => (hosts.length > 1 ? local(hosts.slice(1), done) : done(error)));
};
const control = hello('control', { port });
let buf = '';
control.on('data', (chunk) => {
  buf += chunk.toString('utf8');
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const cid = JSON.parse(buf.slice(0, nl)).open;
    buf = buf.slice(nl + 1);
    local(['127.0.0.1', '::1'], (error, app) => {
      if (error) { control.write(JSON.stringify({ refused: cid, why: String(error.message) }) + '\n'); return; }
      const host = hello('data', { conn: cid });
      app.pipe(host); host.pipe(app);
      const end = () => { app.destroy(); host.destroy(); };
      app.on('error', end); host.on('error', end); app.on('close', end); host.on('close', end);
    });
  }
});
control.on('close', () => process.exit(0));
control.on('error', () => process.exit(0));
`;

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A shell line that runs a forwarder with the interpreter the image has: Node where there is `node` (the
 * JavaScript images), else Python (every other image carries python3). Decided in the sandbox, so no
 * language or flavour needs to say which.
 */
export function withImageInterpreter(node: string, python: string, args: string): string {
  return `if command -v node >/dev/null 2>&1; then exec node -e ${quote(node)} ${args}; else exec python3 -c ${quote(python)} ${args}; fi`;
}

/** The shell command that runs the forwarder for `port` in a sandbox. */
export function forwarderCommand(socketPath: string, port: number, secret: string): string {
  return withImageInterpreter(NODE, PYTHON, `${quote(socketPath)} ${port} ${quote(secret)}`);
}
