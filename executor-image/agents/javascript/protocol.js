'use strict';
/*
 * The JSON-lines protocol with the host (version 1, see ../PROTOCOL.md): which requests are valid, and the
 * shape of every message the agent sends. Pure functions.
 */

const PROTOCOL = 1;

/** The request on one line, or undefined when it is not a JSON object with a string or finite number id. */
function parseRequest(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return undefined;
  const id = msg.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) return undefined;
  return msg;
}

/** `features`: what this agent can do beyond the base protocol (`pipe`: the fs operation of that name). */
function helloReply(id, features = []) {
  return {
    type: 'hello',
    id,
    // A TypeScript session runs on this agent (the core removes the types before the code arrives).
    language: process.env.SANDPIT_LANGUAGE === 'typescript' ? 'typescript' : 'javascript',
    version: process.versions.node,
    pid: process.pid,
    protocol: PROTOCOL,
    ...(features.length ? { features } : {}),
  };
}

function streamMessage(id, name, text) {
  return { type: 'stream', id, name, text };
}

function displayMessage(id, mime, data, encoding) {
  return { type: 'display', id, mime, data, encoding };
}

function resultMessage(id, text) {
  return { type: 'result', id, text };
}

function errorMessage(id, name, value, traceback) {
  return { type: 'error', id, name, value, traceback };
}

function interruptedMessage(id) {
  return errorMessage(
    id,
    'Interrupted',
    'the execution was interrupted',
    'Interrupted: the execution was interrupted\n',
  );
}

/** `dropped` is filled in by the I/O thread when it sends the message (see ordering.js). */
function doneMessage(id, { status, durationMs, files, filesTruncated, straysKilled }) {
  return {
    type: 'done',
    id,
    status,
    durationMs,
    dropped: { stdout: 0, stderr: 0 },
    files,
    filesTruncated,
    straysKilled,
  };
}

module.exports = {
  PROTOCOL,
  parseRequest,
  helloReply,
  streamMessage,
  displayMessage,
  resultMessage,
  errorMessage,
  interruptedMessage,
  doneMessage,
};
