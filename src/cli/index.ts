import { parseArgs } from 'node:util';
import { toErrorBody } from '../shared/api/errors';

const HELP = `Sandpit — run AI assistants' code in hardened Docker sandboxes.

Usage:
  sandpit serve [--port N]   run the core headless: MCP over HTTP, REST and the web panel on 127.0.0.1
  sandpit mcp                speak MCP on stdin/stdout (for desktop assistants)
  sandpit doctor             check Node, Docker, the sandbox images and the data folder
  sandpit connect --list     the assistants on this computer (Claude Desktop, Cursor, VS Code …) and whether they use Sandpit
  sandpit connect <assistant> [--undo]
                             write Sandpit into that assistant's configuration (--undo takes it out again)
  sandpit audit verify       check the audit log's hash chain (exit 1 names the first broken row)
  sandpit audit export --format jsonl|csv [--out FILE]
                             the audit log (filters: --client --session --status --from --to --search)
  sandpit --help             this text

Data folder: $SANDPIT_HOME, else the OS's app-data folder for "Sandpit".
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { port: { type: 'string' } } });
      const port = values.port === undefined ? undefined : Number(values.port);
      if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
        process.stderr.write(`--port must be a number between 0 and 65535, not "${values.port}".\n`);
        return 2;
      }
      return (await import('./serve')).runServe({ port });
    }
    case 'mcp':
      return (await import('./mcp')).runMcp();
    case 'doctor':
      return (await import('./doctor')).runDoctor();
    case 'connect':
      return (await import('./connect')).runConnect(rest);
    case 'audit':
      return (await import('./audit')).runAudit(rest);
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(HELP);
      return 0;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${HELP}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    const body = toErrorBody(error);
    process.stderr.write(`sandpit: ${body.message}\n`);
    process.exitCode = 1;
  },
);
