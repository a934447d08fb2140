import { appendFileSync } from 'node:fs';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function levelFromEnv(): LogLevel {
  const value = process.env.SANDPIT_LOG;
  return value === 'debug' || value === 'info' || value === 'warn' || value === 'error' ? value : 'warn';
}

/**
 * Logs one JSON line per entry to stderr, or to the file named by SANDPIT_LOG_FILE.
 * Never stdout: stdout is the MCP stdio channel.
 */
export function createLogger(base: LogFields = {}, level: LogLevel = levelFromEnv()): Logger {
  const file = process.env.SANDPIT_LOG_FILE;
  const write = (at: LogLevel, message: string, fields?: LogFields): void => {
    if (ORDER[at] < ORDER[level]) return;
    const line = `${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...base, ...fields })}\n`;
    if (file) appendFileSync(file, line);
    else process.stderr.write(line);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger({ ...base, ...fields }, level),
  };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
