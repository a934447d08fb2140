'use strict';
/*
 * The persistent vm context all cells run in. Its globals are Node's (process, Buffer, timers, URL,
 * TextEncoder, fetch, …) plus console (on the captured streams), require (rooted at the workspace;
 * NODE_PATH applies), display() (display.js) and `_` (the last result, until user code assigns `_`).
 * Timers are the execution-owned ones of timers.js; `process` is the agent's, whose exit()/reallyExit()/
 * abort() throw a ProcessExit error instead of ending the agent (process-exit.js). It is a separate realm:
 * objects made by Node's modules (fs.readdirSync's arrays, their errors) fail `instanceof Array`/
 * `instanceof Error` checks inside it (Array.isArray works). import(…) in cells is rewritten
 * (cell-compiler.js) to the context's IMPORT_FN, the loader defined here.
 */

const path = require('path');
const vm = require('vm');
const Module = require('module');
const { pathToFileURL } = require('url');
const { IMPORT_FN } = require('./cell-compiler');

/**
 * Returns {context, sandbox, scriptOptions, setUnderscore}: `scriptOptions` are for the cells' vm.Script,
 * setUnderscore(value) records the last result as `_`.
 */
function createUserContext({ workspace, stdout, stderr, display, timers }) {
  const sandbox = {};
  const context = vm.createContext(sandbox, { name: 'sandpit' });
  const contextGlobal = vm.runInContext('globalThis', context);
  const builtIn = new Set(vm.runInContext('Object.getOwnPropertyNames(globalThis)', context));
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (builtIn.has(name)) continue;
    const desc = Object.getOwnPropertyDescriptor(globalThis, name);
    if (desc) Object.defineProperty(sandbox, name, desc);
  }
  const userConsole = new console.Console({ stdout, stderr, colorMode: false });
  const userRequire = Module.createRequire(path.join(workspace, '<cell>'));

  Object.assign(sandbox, {
    global: contextGlobal,
    console: userConsole,
    require: userRequire,
    process,
    display,
    ...timers.globals,
  });

  // import() inside cells: workspace-relative paths, packages from the workspace or NODE_PATH.
  const importBases = [
    workspace,
    ...(process.env.NODE_PATH || '')
      .split(path.delimiter)
      .filter(Boolean)
      .map((p) => path.dirname(p)),
  ];
  async function importModule(specifier) {
    const spec = String(specifier);
    if (Module.isBuiltin ? Module.isBuiltin(spec) : Module.builtinModules.includes(spec.replace(/^node:/, '')))
      return import(spec);
    if (/^(file:|data:)/.test(spec)) return import(spec);
    if (spec.startsWith('.') || path.isAbsolute(spec)) return import(pathToFileURL(path.resolve(workspace, spec)).href);
    let lastError;
    for (const base of importBases) {
      try {
        return import(pathToFileURL(Module.createRequire(path.join(base, '<cell>')).resolve(spec)).href);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }
  Object.defineProperty(sandbox, IMPORT_FN, { value: (specifier) => importModule(specifier), enumerable: false });
  // import() that the rewriting missed (in eval, new Function …): Node >= 21 can use the main loader.
  const scriptOptions =
    vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
      ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }
      : {};

  // The last result is `_` until user code assigns `_` itself.
  let underscoreAuto = true;
  let lastUnderscore;
  function setUnderscore(value) {
    if (!underscoreAuto) return;
    if (Object.prototype.hasOwnProperty.call(sandbox, '_') && sandbox._ !== lastUnderscore) {
      underscoreAuto = false;
      return;
    }
    sandbox._ = value;
    lastUnderscore = value;
  }

  return { context, sandbox, scriptOptions, setUnderscore };
}

module.exports = { createUserContext };
