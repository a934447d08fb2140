'use strict';
/*
 * Errors thrown by user code as the host sees them: name, value (message) and a traceback that shows the
 * user's frames (`<cell-N>`, and what user code called) but not the agent's: frames of files in this
 * directory, of node:vm and below the last cell frame are removed. Compile errors show no frames at all.
 */

const path = require('path');
const util = require('util');
const { clip } = require('./limits');
const protocol = require('./protocol');

/** Every module of the agent lives in this directory; no frame of these files is shown to users. */
const AGENT_DIR = __dirname + path.sep;

function cleanStack(stack) {
  const lines = stack.split('\n');
  const isFrame = (line) => /^\s+at /.test(line);
  let lastCell = -1;
  lines.forEach((line, i) => {
    if (isFrame(line) && line.includes('<cell-')) lastCell = i;
  });
  return (
    lines
      .filter(
        (line, i) =>
          !isFrame(line) ||
          ((lastCell < 0 || i <= lastCell) &&
            !line.includes(AGENT_DIR) &&
            !/\(node:vm:|at node:vm:|\[as runInContext\]|Script\.runInContext/.test(line)),
      )
      .join('\n')
      .replace(/\s+$/, '') + '\n'
  );
}

/** {name, value, traceback} of anything thrown; `compile` drops every frame (a SyntaxError's are the agent's). */
function describe(error, compile) {
  let name = 'Uncaught';
  let value;
  let stack;
  try {
    if (
      error !== null &&
      (typeof error === 'object' || typeof error === 'function') &&
      typeof error.message === 'string'
    ) {
      name = typeof error.name === 'string' && error.name ? error.name : 'Error';
      value = error.message;
      stack = typeof error.stack === 'string' ? error.stack : undefined;
    } else {
      value = util.inspect(error);
    }
  } catch {
    value = '<the error could not be read>';
  }
  if (!stack) stack = `${name}: ${value}`;
  if (compile)
    stack = stack
      .split('\n')
      .filter((line) => !/^\s+at /.test(line))
      .join('\n');
  return { name, value, traceback: cleanStack(stack) };
}

/** The `error` message for `error`, its value and traceback clipped to the execution's limit. */
function errorMessage(id, error, limit, compile) {
  const { name, value, traceback } = describe(error, compile);
  return protocol.errorMessage(id, name, clip(value, limit), clip(traceback, limit));
}

module.exports = { describe, errorMessage };
