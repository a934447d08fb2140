import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { toErrorBody } from '../shared/api/errors';
import { ASSISTANT_IDS, assistantIdOf } from '../shared/domain/assistants';
import type { AssistantChange, AssistantStatus } from '../shared/domain/assistants';
import { lineDiff } from '../shared/line-diff';
import { AssistantConnector } from '../core/connect/assistant-connector';
import { userPlaces } from '../core/connect/assistant-targets';
import { stdioCommand } from '../core/connect/stdio-command';
import { resolveHome } from '../core/home';

export const CONNECT_HELP = `Usage:
  sandpit connect --list             the assistants on this computer and whether Sandpit is in their configuration
  sandpit connect <assistant>        write Sandpit into that assistant's configuration (the file as it was is kept)
  sandpit connect <assistant> --undo take it out again (the file exactly as it was, when nothing changed it since)

Assistants: ${ASSISTANT_IDS.join(', ')}
`;

const STATE_WORDS: Record<AssistantStatus['state'], string> = {
  'not-found': 'not on this computer',
  'not-connected': 'not connected',
  connected: 'connected',
  outdated: 'connected to another Sandpit (connect again to update)',
  unreadable: 'its configuration does not parse',
};

export interface ConnectCliOptions {
  home?: string;
  stdout?: Writable;
  stderr?: Writable;
}

/** The change as a person reads it: removed lines with "-", added with "+", a few kept lines around each change. */
export function changeText(change: AssistantChange): string {
  const lines = lineDiff(change.before, change.after);
  const near = (index: number): boolean =>
    lines.slice(Math.max(0, index - 2), index + 3).some((line) => line.op !== 'same');
  const shown: string[] = [];
  lines.forEach((line, index) => {
    if (line.op !== 'same') shown.push(`${line.op === 'added' ? '+' : '-'} ${line.text}`);
    else if (near(index)) shown.push(`  ${line.text}`);
    else if (shown.at(-1) !== '  …') shown.push('  …');
  });
  return shown.join('\n');
}

/** `sandpit connect`: the Connect screen's one-click setup, from a terminal. */
export async function runConnect(argv: string[], options: ConnectCliOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  let parsed: ReturnType<
    typeof parseArgs<{
      options: { list: { type: 'boolean' }; undo: { type: 'boolean' }; help: { type: 'boolean' } };
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args: argv,
      options: { list: { type: 'boolean' }, undo: { type: 'boolean' }, help: { type: 'boolean' } },
      allowPositionals: true,
    });
  } catch (error) {
    stderr.write(`${(error as Error).message}\n\n${CONNECT_HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    stdout.write(CONNECT_HELP);
    return 0;
  }
  const home = options.home ?? resolveHome();
  const connector = new AssistantConnector({ dataHome: home, places: userPlaces(), stdio: stdioCommand({ home }) });
  if (values.list) {
    const all = await connector.list();
    const width = Math.max(...all.map((s) => s.label.length));
    stdout.write(`Assistants (Sandpit's data folder: ${home}):\n`);
    for (const status of all) {
      const where = status.state === 'not-found' ? '' : `  ${status.configPath}`;
      stdout.write(`  ${status.id.padEnd(15)} ${status.label.padEnd(width)}  ${STATE_WORDS[status.state]}${where}\n`);
    }
    return 0;
  }
  const [name, ...extra] = positionals;
  const id = assistantIdOf(name);
  if (!id || extra.length > 0) {
    stderr.write(
      `${name === undefined ? 'Name the assistant to connect, or use --list.' : `There is no assistant called "${positionals.join(' ')}".`}\n\n${CONNECT_HELP}`,
    );
    return 2;
  }
  try {
    const change = values.undo ? await connector.disconnect(id) : await connector.connect(id);
    if (change.changed) stdout.write(`${change.status.configPath}:\n${changeText(change)}\n\n`);
    stdout.write(`${change.message}\n`);
    return 0;
  } catch (error) {
    stderr.write(`${toErrorBody(error).message}\n`);
    return 1;
  }
}
