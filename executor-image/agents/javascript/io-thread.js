'use strict';
/*
 * The I/O thread: a worker thread that main.js starts on this file. It owns the channel to the host
 * (channel.js) and the output pumps (pumps.js, ordering.js), so requests are read, interrupts delivered
 * (interrupts.js) and output forwarded even while user code keeps the main thread busy (`while (true) {}`).
 * `hello` is answered here, and so are `fs` and `reap` (workspace-fs.js: the host's file operations never touch
 * the main thread or user code's state); `execute` and `interrupt` are passed on to the main thread (executor.js), which
 * posts back marks ({k: 'mark'}, see marks.js), forced marks ({k: 'force'}) and, without FIFOs, output
 * ({k: 'out'}). When the stdio channel ends, it asks the main thread to exit ({k: 'exit'}).
 *
 * workerData: {sandpitIo: true, spec, inFd, outFd, logFd, secret, shared, pumps: [{name, fd}], workspace,
 * mayKillStrays}.
 */

const { isMainThread, parentPort, workerData } = require('worker_threads');
const { log, setLogFd } = require('./log');
const { parseRequest, helloReply } = require('./protocol');
const { createChannel } = require('./channel');
const { createInterrupter } = require('./interrupts');
const { Pump, pauseForBackPressure } = require('./pumps');
const { createOrdering } = require('./ordering');
const { createWorkspaceFs } = require('./workspace-fs');
const { pipeDir } = require('./pipe-program');

function runIoThread(data) {
  setLogFd(data.logFd);
  const shared = new Int32Array(data.shared);
  const interrupter = createInterrupter(shared, data.mayKillStrays === true);

  function dispatch(line) {
    const msg = parseRequest(line);
    if (!msg) return;
    const id = msg.id;
    try {
      if (msg.type === 'hello') {
        channel.send(helloReply(id, pipeFolder ? ['pipe'] : []));
      } else if (msg.type === 'execute' && typeof msg.code === 'string') {
        parentPort.postMessage({ k: 'execute', msg: { id, code: msg.code, outputLimit: msg.outputLimit } });
      } else if (msg.type === 'interrupt') {
        interrupter.interrupt(id);
        parentPort.postMessage({ k: 'interrupt', id });
      } else if (msg.type === 'fs' || msg.type === 'reap') {
        workspaceFs.handle(msg);
      }
    } catch (error) {
      log(`request failed: ${error && error.stack}`);
    }
  }

  const channel = createChannel({
    onLine: dispatch,
    onEnd: () => {
      parentPort.postMessage({ k: 'exit' });
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1500).unref();
    },
  });

  const pipeFolder = pipeDir(data.spec);
  const workspaceFs = createWorkspaceFs({
    root: data.workspace,
    pipeFolder,
    send: channel.send,
    busy: channel.busy,
    whenDrained: channel.whenDrained,
    mayKillStrays: data.mayKillStrays === true,
  });

  const pumps = data.pumps.map((p) => new Pump(p.name, channel.send));
  const pumpByName = new Map(pumps.map((p) => [p.name, p]));
  const ordering = createOrdering({ pumps, secret: data.secret, send: channel.send, busy: channel.busy });

  for (const spec of data.pumps) {
    const p = pumpByName.get(spec.name);
    if (spec.fd === undefined || spec.fd < 0) continue; // fed by messages from the main thread
    p.attach(spec.fd, (chunk) => {
      ordering.feed(p, chunk);
      pauseForBackPressure(pumps, channel);
    });
  }

  parentPort.on('message', (m) => {
    try {
      if (m.k === 'mark') {
        if (m.begin) interrupter.begin(m.begin.id, m.begin.seq);
        if (m.end && m.endId !== undefined) interrupter.end(m.endId);
        ordering.add(m);
      } else if (m.k === 'force') ordering.force(m.n);
      else if (m.k === 'out') {
        const p = pumpByName.get(m.name);
        if (p) ordering.feed(p, Buffer.from(m.data));
      }
    } catch (error) {
      log(`I/O thread: ${error && error.stack}`);
    }
  });

  channel.start(data.spec, data.inFd, data.outFd);
}

if (!isMainThread && workerData && workerData.sandpitIo) runIoThread(workerData);

module.exports = { runIoThread };
