import { TOKEN_PLACEHOLDER } from '../../../../shared/domain/connect';
import type { StdioCommand } from '../../../../shared/domain/connect';

/** A config with the real token in place of the placeholder, once the person revealed it. */
export function withToken(text: string, token: string | undefined): string {
  return token ? text.split(TOKEN_PLACEHOLDER).join(token) : text;
}

/** Quotes an argument for a POSIX shell when it needs it. */
function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The stdio command as one line to paste in a terminal (environment variables first). */
export function commandLine(command: StdioCommand): string {
  const env = Object.entries(command.env ?? {}).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...env, shellQuote(command.command), ...command.args.map(shellQuote)].join(' ');
}

/** "abcd…wxyz" style hiding: nothing of the token is shown. */
export const HIDDEN_TOKEN = '••••••••••••••••••••••••';
