import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const root = import.meta.dirname;

/** Every `node:` import stays a Node builtin, including ones the build's own Node may not list (node:sqlite). */
const nodeBuiltins = [/^node:/];

/**
 * The Vite dev server (ELECTRON_RENDERER_URL) injects an inline React-refresh preamble and speaks HMR over a
 * websocket; the strict CSP in index.html would block both. Relaxed only in `serve`, never in a build.
 */
function devCspPlugin(): Plugin {
  return {
    name: 'sandpit:dev-csp',
    apply: 'serve',
    transformIndexHtml: (html) =>
      html
        .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
        .replace("connect-src 'self'", "connect-src 'self' ws://localhost:*"),
  };
}

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      lib: { entry: resolve(root, 'src/main/index.ts') },
      // dependencies (dockerode, zod, …) load from node_modules at run time.
      externalizeDeps: true,
      rolldownOptions: { external: nodeBuiltins },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      lib: { entry: resolve(root, 'src/preload/index.ts') },
      // A sandboxed preload can require only `electron`: bundle everything else into one CommonJS file.
      externalizeDeps: false,
      rolldownOptions: { output: { format: 'cjs' } },
    },
  },
  renderer: {
    root: resolve(root, 'src/renderer'),
    base: './',
    plugins: [react(), devCspPlugin()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rolldownOptions: { input: resolve(root, 'src/renderer/index.html') },
    },
  },
});
