import { DEFAULT_PORT } from '../core/config';
import { createMcpHttpMount } from '../core/mcp/http-mount';
import { serveHttp } from '../core/http/serve-http';
import { bootSandpit } from '../core/boot';
import { untilSignal } from './until-signal';

/** `sandpit serve`: the headless core on 127.0.0.1, until Ctrl-C. */
export async function runServe(options: { port?: number }): Promise<number> {
  const { sandpit, notes } = await bootSandpit(options.port === undefined ? {} : { overrides: { port: options.port } });
  const mcp = createMcpHttpMount(sandpit);
  const served = await serveHttp(sandpit, options.port ?? sandpit.config.port ?? DEFAULT_PORT, [mcp.route]).catch(async (error: unknown) => {
    await sandpit.dispose();
    throw error;
  });
  const { http, panelToken, tokenFile } = served;
  const engine = sandpit.engine.current;
  // Docker's problem is said once, on the docker line: its message already holds the fix, and the image
  // checks that failed for the same reason would only repeat it.
  const dockerLine =
    engine.state === 'up'
      ? `up (${engine.version ?? '?'})`
      : `DOWN at ${engine.endpoint}${engine.source ? ` (${engine.source})` : ''} — ${engine.message ?? ''}${engine.fix && !(engine.message ?? '').includes(engine.fix) ? ` ${engine.fix}` : ''}${engine.source === 'the Sandpit setting' ? ' Or open the web panel: it offers the Docker engines that answer (Settings → Docker).' : ''}`;
  const shown = new Set<string>(engine.state === 'up' ? [] : [engine.message ?? '']);
  const freshNotes = notes.filter((note) => {
    if (shown.has(note)) return false;
    shown.add(note);
    return true;
  });
  const lines = [
    `Sandpit is running at ${http.url}`,
    `  MCP:         ${http.url}/mcp   (Streamable HTTP; send "Authorization: Bearer <token>")`,
    `  web panel:   ${http.url}/#token=${panelToken}   (it opens the panel, also after a restart: keep it to yourself; Connect → Make a new link replaces it)`,
    `  health:      ${http.url}/health`,
    `  token file:  ${tokenFile}`,
    `  data folder: ${sandpit.config.home}`,
    `  docker:      ${dockerLine}`,
    ...freshNotes.map((n) => `  note:        ${n}`),
    'Press Ctrl-C to stop (sessions are stopped and their containers removed).',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await untilSignal(async () => {
    await served.close();
    await mcp.close();
    await sandpit.dispose();
  });
  return 0;
}
