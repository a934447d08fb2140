'use strict';
/*
 * Node's own HTTP clients through the proxy the environment names (HTTPS_PROXY / HTTP_PROXY, NO_PROXY).
 *
 * Node before 22.21 / 24.5 ignores those variables: `fetch`, `http` and `https` connect straight to the host,
 * which a sandbox on Sandpit's egress network can never reach. Preloaded into every node process of the image
 * (NODE_OPTIONS=--require, set in the Dockerfile), this module gives `http.globalAgent` and `https.globalAgent`
 * agents that open each connection as a `CONNECT host:port` tunnel through the proxy (TLS then runs inside the
 * tunnel, verified as usual: NODE_EXTRA_CA_CERTS is part of Node's default trust), and does the same for
 * `fetch` with a dispatcher of fetch's own Agent class whose connections are those tunnels. The dispatcher
 * is made at the first `fetch` call (loading fetch's library costs a node start ~0.1 s).
 *
 * It runs before the agent claims stdio, so it must never touch stdio nor throw: it writes nothing, reads
 * nothing, does nothing without a proxy variable, and every step is inside try/catch. Requiring it is free
 * of side effects: it installs only when node preloads it (`--require`), or when `install()` is called.
 */

const net = require('net');
const tls = require('tls');

const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const CONNECT_TIMEOUT_MS = 30_000;
const MAX_HEAD_BYTES = 16 * 1024;

/** The proxy for one scheme, from the environment: { host, port, auth } or undefined (none, or not http://). */
function proxyFor(env, secure) {
  const raw = secure
    ? env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy
    : env.HTTP_PROXY || env.http_proxy;
  if (!raw) return undefined;
  let url;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:') return undefined;
  const user = decodeURIComponent(url.username);
  const auth = user ? `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString('base64')}` : undefined;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || 80, auth };
}

/** Whether NO_PROXY sends `host` straight: `*`, the host itself, or a domain it is under (`example.com`, `.example.com`). */
function bypassed(env, host) {
  const list = (env.NO_PROXY || env.no_proxy || '').split(/[\s,]+/).filter(Boolean);
  const name = host.toLowerCase();
  return list.some((entry) => {
    if (entry === '*') return true;
    const domain = entry.toLowerCase().replace(/^\*?\./, '').replace(/:\d+$/, '');
    return name === domain || name.endsWith(`.${domain}`);
  });
}

function authorityOf(host, port) {
  return `${net.isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * Opens `CONNECT host:port` through the proxy; `done(error)` or `done(null, socket)` once the proxy answered
 * 200 (bytes after the answer's head stay in the socket). A refusal says the proxy's words (X-Sandpit-Refused).
 */
function tunnel(proxy, host, port, done) {
  const authority = authorityOf(host, port);
  const socket = net.connect({ host: proxy.host, port: proxy.port });
  let head = Buffer.alloc(0);
  let finished = false;
  const finish = (error, result) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    socket.removeListener('data', onData);
    if (error) socket.destroy();
    done(error, result);
  };
  const timer = setTimeout(() => finish(new Error(`The proxy did not answer CONNECT ${authority} within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > MAX_HEAD_BYTES) finish(new Error(`The proxy's answer to CONNECT ${authority} is too long`));
      return;
    }
    const lines = head.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] || '')?.[1]);
    if (status !== 200) {
      const refused = lines.find((l) => /^x-sandpit-refused:/i.test(l));
      const why = refused ? ` (${refused.slice(refused.indexOf(':') + 1).trim()})` : '';
      const error = new Error(`The proxy refused CONNECT ${authority}: ${lines[0] || 'no answer'}${why}`);
      error.code = 'ERR_PROXY_REFUSED';
      error.statusCode = status;
      return finish(error);
    }
    const rest = head.subarray(end + 4);
    if (rest.length > 0) socket.unshift(rest);
    finish(null, socket);
  };
  socket.on('data', onData);
  socket.once('error', (error) => finish(error));
  socket.once('close', () => finish(new Error(`The proxy closed the connection before answering CONNECT ${authority}`)));
  socket.once('connect', () => {
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${proxy.auth ? `Proxy-Authorization: ${proxy.auth}\r\n` : ''}\r\n`);
  });
}

/** An http(s).Agent whose connections are tunnels through `proxy` (TLS inside for https), unless NO_PROXY says otherwise. */
function proxyAgent(Base, env, proxy, secure) {
  class TunnelAgent extends Base {
    createConnection(options, done) {
      const host = String(options.host || 'localhost').replace(/^\[|\]$/g, '');
      const port = Number(options.port) || (secure ? 443 : 80);
      if (bypassed(env, host)) return super.createConnection(options, done);
      tunnel(proxy, host, port, (error, socket) => {
        if (error) return done(error);
        if (!secure) return done(null, socket);
        const servername = options.servername || (net.isIP(host) ? undefined : host);
        done(null, tls.connect({ ...options, socket, ...(servername ? { servername } : {}) }));
      });
      return undefined;
    }
  }
  return new TunnelAgent({ keepAlive: true });
}

/** fetch's connector: a tunnel per connection, TLS inside for https (verified, SNI the host's name). */
function fetchConnector(env) {
  return (opts, callback) => {
    const secure = opts.protocol === 'https:';
    const host = String(opts.hostname || opts.host || '').replace(/^\[|\]$/g, '').replace(/:\d+$/, '');
    const port = Number(opts.port) || (secure ? 443 : 80);
    const proxy = proxyFor(env, secure);
    const direct = !proxy || bypassed(env, host);
    const connected = (error, socket) => {
      if (error) return callback(error);
      if (!secure) return callback(null, socket);
      const servername = opts.servername || (net.isIP(host) ? undefined : host);
      const secured = tls.connect({ socket, ALPNProtocols: ['http/1.1'], ...(servername ? { servername } : {}) });
      const failed = (e) => callback(e);
      secured.once('error', failed);
      secured.once('secureConnect', () => {
        secured.removeListener('error', failed);
        callback(null, secured);
      });
    };
    if (!direct) return tunnel(proxy, host, port, connected);
    const socket = net.connect({ host, port });
    const failed = (e) => connected(e);
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.removeListener('error', failed);
      connected(null, socket);
    });
  };
}

/** Replaces fetch's global dispatcher with one of its own Agent class that connects through the proxy. */
function installFetchDispatcher(env) {
  const current = globalThis[DISPATCHER];
  // Only over fetch's own plain Agent: a dispatcher the code (or Node's NODE_USE_ENV_PROXY) set stays.
  if (!current || typeof current.constructor !== 'function' || current.constructor.name !== 'Agent') return;
  globalThis[DISPATCHER] = new current.constructor({ connect: fetchConnector(env) });
}

/** Installs the agents and the fetch wrapper when the environment names a proxy. Never throws. */
function install(env = process.env) {
  try {
    const httpsProxy = proxyFor(env, true);
    const httpProxy = proxyFor(env, false);
    if (!httpsProxy && !httpProxy) return false;
    const http = require('http');
    const https = require('https');
    if (httpProxy) http.globalAgent = proxyAgent(http.Agent, env, httpProxy, false);
    if (httpsProxy) https.globalAgent = proxyAgent(https.Agent, env, httpsProxy, true);
    const original = globalThis.fetch;
    if (typeof original === 'function') {
      let ready = false;
      const fetch = function fetch(input, init) {
        if (!ready) {
          ready = true;
          try {
            void globalThis.Headers; // loads fetch's library, which makes its global dispatcher
            installFetchDispatcher(env);
          } catch {
            // fetch keeps its own dispatcher
          }
        }
        return original.call(this, input, init);
      };
      globalThis.fetch = fetch;
    }
    return true;
  } catch {
    return false;
  }
}

function preloaded() {
  try {
    if (module.parent?.id !== 'internal/preload') return false;
    // The agent's own I/O thread never makes requests.
    const { isMainThread, workerData } = require('worker_threads');
    return isMainThread || !(workerData && workerData.sandpitIo);
  } catch {
    return false;
  }
}

if (preloaded()) install();

module.exports = { install, proxyFor, bypassed, tunnel };
