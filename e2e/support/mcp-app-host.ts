/**
 * A chat host for MCP Apps in a page, as the specs play one: the official `AppBridge` of
 * `@modelcontextprotocol/ext-apps/app-bridge` (bundled for the browser here, once per run) renders the app a real
 * assistant read from the real server in a sandboxed frame (`allow-scripts` only: an opaque origin) under the spec's
 * strictest policy (no network, no eval), hands it the host's context (theme, colours), forwards its tools/call to the
 * assistant's real MCP client, and records the sizes it reports.
 */
import type { Page } from '@playwright/test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import type { McpAssistant } from './mcp';
import { REPO_ROOT } from './serve-process';

/** What a host declares when it renders MCP Apps (what the server checks before it sends the console's tables). */
export const RENDERS_APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/** The policy a host applies to an app that declares no domains: nothing from anywhere, no eval. */
export const STRICT_APP_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; frame-src 'none'; base-uri 'none'";

let bridgeScript: Promise<string> | undefined;

function appBridgeScript(): Promise<string> {
  bridgeScript ??= build({
    stdin: {
      contents: "import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge'; globalThis.McpAppHost = { AppBridge, PostMessageTransport };",
      resolveDir: REPO_ROOT,
      loader: 'js',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then((r) => r.outputFiles[0]!.text);
  return bridgeScript;
}

export interface HostLook {
  theme?: 'light' | 'dark';
  /** MCP Apps style variables (e.g. `--color-background-primary`). */
  variables?: Record<string, string>;
}

export interface AppHost {
  /** The app's frame. */
  frame: ReturnType<Page['frameLocator']>;
  /** Tells the app what the tool was called with, then what it returned (ui/notifications/tool-input, tool-result). */
  showCall(args: Record<string, unknown>, result: CallToolResult): Promise<void>;
  /** Changes the host's look (ui/notifications/host-context-changed). */
  setLook(look: HostLook): Promise<void>;
  /** Every height the app reported (ui/notifications/size-changed), in order. */
  heights(): Promise<number[]>;
}

/**
 * Opens the app that `tool` links (its `_meta.ui.resourceUri`), read with `assistant`'s client, in `page`, connected
 * through AppBridge; resolves once the app has initialized (ui/initialize answered, ui/notifications/initialized in).
 */
export async function openAppHost(page: Page, assistant: McpAssistant, tool: string, look: HostLook = {}): Promise<AppHost> {
  const { tools } = await assistant.client.listTools();
  const uri = (tools.find((t) => t.name === tool)?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
  if (!uri) throw new Error(`${tool} links no MCP App.`);
  const read = await assistant.client.readResource({ uri });
  const app = read.contents[0] as { mimeType?: string; text?: string };
  if (app.mimeType !== 'text/html;profile=mcp-app' || typeof app.text !== 'string') throw new Error(`${uri} is not an MCP App (${app.mimeType}).`);
  // As hosts do: the app's policy goes into its document (the host page itself runs the bridge, which needs more).
  const html = app.text.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${STRICT_APP_CSP}">`);
  await page.exposeFunction('hostCallTool', (name: string, args: Record<string, unknown>) =>
    assistant.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }),
  );
  await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
  await page.addScriptTag({ content: await appBridgeScript() });
  await page.evaluate(
    async ({ html: srcdoc, look: hostLook }) => {
      type Bridge = {
        oncalltool: (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>;
        oninitialized: () => void;
        addEventListener(event: 'sizechange', listener: (size: { width?: number; height?: number }) => void): void;
        connect(transport: unknown): Promise<void>;
      };
      const host = (globalThis as unknown as { McpAppHost: { AppBridge: new (...args: unknown[]) => Bridge; PostMessageTransport: new (target: Window, source: Window) => unknown } }).McpAppHost;
      const frame = document.createElement('iframe');
      frame.id = 'app';
      frame.setAttribute('sandbox', 'allow-scripts');
      frame.style.cssText = 'width:640px;height:120px;border:1px solid #888';
      document.body.appendChild(frame);
      const heights: number[] = [];
      const state = globalThis as unknown as { appHeights: number[]; appBridge: Bridge };
      state.appHeights = heights;
      const bridge = new host.AppBridge(
        null,
        { name: 'Sandpit e2e host', version: '1.0.0' },
        { serverTools: {}, logging: {} },
        { hostContext: { theme: hostLook.theme ?? 'light', displayMode: 'inline', ...(hostLook.variables ? { styles: { variables: hostLook.variables } } : {}) } },
      );
      state.appBridge = bridge;
      bridge.oncalltool = (params) => (globalThis as unknown as { hostCallTool: (n: string, a: unknown) => Promise<unknown> }).hostCallTool(params.name, params.arguments ?? {});
      bridge.addEventListener('sizechange', ({ height }) => {
        if (typeof height !== 'number') return;
        heights.push(height);
        frame.style.height = `${height}px`;
      });
      const initialized = new Promise<void>((resolve) => {
        bridge.oninitialized = resolve;
      });
      await bridge.connect(new host.PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
      frame.srcdoc = srcdoc;
      await initialized;
    },
    { html, look },
  );
  return {
    frame: page.frameLocator('#app'),
    showCall: (args, result) =>
      page.evaluate(
        async ({ args: input, result: output }) => {
          const bridge = (globalThis as unknown as { appBridge: { sendToolInput(p: unknown): Promise<void>; sendToolResult(p: unknown): Promise<void> } }).appBridge;
          await bridge.sendToolInput({ arguments: input });
          await bridge.sendToolResult(output);
        },
        { args, result },
      ),
    setLook: (changed) =>
      page.evaluate((l) => {
        const bridge = (globalThis as unknown as { appBridge: { setHostContext(c: unknown): void } }).appBridge;
        bridge.setHostContext({ displayMode: 'inline', theme: l.theme ?? 'light', ...(l.variables ? { styles: { variables: l.variables } } : {}) });
      }, changed),
    heights: () => page.evaluate(() => [...(globalThis as unknown as { appHeights: number[] }).appHeights]),
  };
}
