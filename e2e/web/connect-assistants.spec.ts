/**
 * One click to connect: a fresh home with Cursor (another server already in its file), VS Code (comments in
 * its file) and Windsurf (a broken file). Connect writes Sandpit into Cursor's file and shows the change; the
 * `sandpit mcp` the written configuration starts answers a real MCP client and the row turns "connected";
 * Disconnect puts the file back byte for byte. The broken file is refused, in words, and left as it is.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LAYOUTS } from '../../src/test-support/assistant-layouts';
import { cliEnv } from '../../src/test-support/run-cli';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApprovalPrompt } from '../pages/approval-prompt';
import { PanelPage } from '../pages/panel-page';
import { startOwnSandpit } from '../support/own-sandpit';
import { saveScreenshot } from '../support/screenshots';
import { expect, test } from './fixtures';

function lay(home: string, relative: string, text: string): string {
  const path = join(home, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

test('Connect writes Sandpit into Cursor’s file, the assistant’s first handshake shows it connected, and Disconnect undoes it exactly', async ({
  page,
  server,
}, testInfo) => {
  const person = mkdtempSync(join(tmpdir(), 'sandpit-e2e-person-'));
  const cursorFile = lay(person, LAYOUTS.cursor.path, LAYOUTS.cursor.text);
  const vscodeFile = lay(person, LAYOUTS.vscode.path, LAYOUTS.vscode.text);
  const broken = '{\n  "mcpServers": {\n    "git": { "command": "uvx" }\n    "docs": {}\n  }\n}\n';
  const windsurfFile = lay(person, LAYOUTS.windsurf.path, broken);
  const own = await startOwnSandpit(testInfo, server.pythonImage, { env: { HOME: person } });
  let client: Client | undefined;
  try {
    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await panel.go('connect');
    const card = page.getByTestId('connect-assistants');
    const cursor = card.getByTestId('assistant-cursor');
    await expect(cursor).toHaveAttribute('data-state', 'not-connected');
    await expect(card.getByTestId('assistant-vscode')).toHaveAttribute('data-state', 'not-connected');
    // The broken file: said so, how to fix it, and no Connect button.
    const windsurf = card.getByTestId('assistant-windsurf');
    await expect(windsurf).toHaveAttribute('data-state', 'unreadable');
    await expect(windsurf.getByTestId('assistant-problem-windsurf')).toContainText(
      `Sandpit cannot read ${windsurfFile} (line 4, column 5: a missing comma), so it left the file as it is.`,
    );
    await expect(windsurf.getByTestId('assistant-connect-windsurf')).toHaveCount(0);
    // Not installed: listed apart, not offered.
    await expect(card.getByTestId('assistants-missing')).toContainText('Not found on this computer (6)');
    // The second way: Cursor's own install link.
    await expect(cursor.getByTestId('assistant-deeplink-cursor')).toHaveAttribute(
      'href',
      /^cursor:\/\/anysphere\.cursor-deeplink\/mcp\/install\?name=sandpit&config=/,
    );

    await cursor.getByTestId('assistant-connect-cursor').click();
    await expect(cursor).toHaveAttribute('data-state', 'connected');
    const message = cursor.getByTestId('assistant-message-cursor');
    await expect(message).toContainText(
      `Sandpit is now in Cursor's configuration (${cursorFile}); the rest of the file is as it was.`,
    );
    await expect(message).toContainText('Quit Cursor completely and open it again');
    await expect(cursor.getByTestId('assistant-state-cursor')).toHaveText('Set up; not connected yet.');
    await message.getByText('Show the change').click();
    await expect(cursor.getByTestId('assistant-diff-cursor')).toContainText('+ "sandpit": {');
    await expect(cursor.getByTestId('assistant-diff-cursor')).toContainText('"docs"');
    const written = readFileSync(cursorFile, 'utf8');
    const config = JSON.parse(written) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    expect(Object.keys(config.mcpServers)).toEqual(['docs', 'sandpit']);
    expect(config.mcpServers.docs).toEqual({ url: 'http://localhost:3001/mcp' });
    await saveScreenshot(page, testInfo, 'connect-assistants');

    // Cursor restarts and starts Sandpit the way its file says: the handshake arrives and the row says so.
    const entry = config.mcpServers.sandpit!;
    // Its configuration may also ask for approvals (as the Claude Desktop extension's setting does): stricter than the settings' "free".
    client = new Client({ name: 'cursor-test', version: '1' });
    const env = { ...cliEnv({ HOME: person }), ...entry.env, SANDPIT_APPROVAL: 'ask-every' };
    await client.connect(
      new StdioClientTransport({ command: entry.command, args: entry.args, env, stderr: 'ignore' }),
      { timeout: 30_000 },
    );
    await expect(cursor).toHaveAttribute('data-state', 'talking');
    await expect(cursor.getByTestId('assistant-state-cursor')).toHaveText('Connected: it is talking to Sandpit now');
    const run = client.callTool({ name: 'execute_code', arguments: { code: 'print("from cursor")' } }, undefined, {
      timeout: 90_000,
    }) as Promise<CallToolResult>;
    const prompt = new ApprovalPrompt(page);
    await prompt.approve(await prompt.waitFor('print("from cursor")'));
    const result = await run;
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    expect((result.structuredContent as { stdout: string }).stdout).toBe('from cursor\n');
    await client.close();
    client = undefined;

    await cursor.getByTestId('assistant-disconnect-cursor').click();
    await expect(cursor).toHaveAttribute('data-state', 'not-connected');
    await expect(cursor.getByTestId('assistant-message-cursor')).toContainText(
      `${cursorFile} is back exactly as it was before Sandpit connected.`,
    );
    expect(readFileSync(cursorFile, 'utf8')).toBe(LAYOUTS.cursor.text);
    expect(readFileSync(vscodeFile, 'utf8')).toBe(LAYOUTS.vscode.text);
    expect(readFileSync(windsurfFile, 'utf8')).toBe(broken);
  } finally {
    await client?.close();
    await own.dispose();
    rmSync(person, { recursive: true, force: true });
  }
});

test('“Copy this setup” for the network way copies the real access key, and only then says Copied', async ({
  page,
  server,
}, testInfo) => {
  const own = await startOwnSandpit(testInfo, server.pythonImage);
  try {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const panel = new PanelPage(page);
    await panel.openWithToken(own.info.url, own.info.panelToken);
    await panel.go('connect');
    await page.getByTestId('connect-config-cursor').click();
    const copy = page.getByTestId('connect-config-http-copy');
    await copy.click();
    await expect(copy).toHaveText('Copied, with the access key');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`Bearer ${own.info.token}`);
    expect(copied).not.toContain('<SANDPIT_TOKEN>');
    // Claude Desktop's text says what to do with a file that already lists servers.
    await page.getByTestId('connect-config-claudeDesktop').click();
    await expect(page.getByTestId('connect-config-where')).toContainText(
      'if it already lists servers, copy only the "sandpit": { … } part into its "mcpServers"',
    );
  } finally {
    await own.dispose();
  }
});
