import { DEFAULT_PORT } from '../core/config';
import { startHttpServer } from '../core/http/http-server';
import { startCore, untilSignal } from './start-core';

/** `sandpit serve`: the headless core on 127.0.0.1, until Ctrl-C. */
export async function runServe(options: { port?: number }): Promise<number> {
  const { sandpit, notes } = await startCore(options.port === undefined ? {} : { port: options.port });
  const http = await startHttpServer({ sandpit, port: options.port ?? sandpit.config.port ?? DEFAULT_PORT });
  const engine = sandpit.engine.current;
  const lines = [
    `Sandpit is running at ${http.url}`,
    `  health:      ${http.url}/health`,
    `  data folder: ${sandpit.config.home}`,
    `  docker:      ${engine.state === 'up' ? `up (${engine.version ?? '?'})` : `DOWN — ${engine.message ?? ''} ${engine.fix ?? ''}`}`,
    ...notes.map((n) => `  note:        ${n}`),
    'Press Ctrl-C to stop (sessions are stopped and their containers removed).',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await untilSignal(async () => {
    await http.close();
    await sandpit.dispose();
  });
  return 0;
}
