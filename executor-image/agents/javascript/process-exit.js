'use strict';
/*
 * process.exit(), process.reallyExit() and process.abort() throw a ProcessExit error instead of ending the
 * agent (the session keeps running). The agent itself exits through the original reallyExit, which
 * main.js keeps before calling patchProcessExit().
 */

class ProcessExit extends Error {
  constructor(code) {
    super(`process.exit(${code === undefined ? '' : code}) was called; the session keeps running`);
    this.name = 'ProcessExit';
    this.exitCode = code;
  }
}

function patchProcessExit() {
  process.exit = function exit(code) {
    throw new ProcessExit(code === undefined ? process.exitCode : code);
  };
  process.reallyExit = function reallyExit(code) {
    throw new ProcessExit(code);
  };
  process.abort = function abort() {
    throw new ProcessExit('abort');
  };
}

module.exports = { ProcessExit, patchProcessExit };
