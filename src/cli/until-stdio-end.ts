const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Resolves with the reason once the MCP client is gone: stdin ended or closed, or a stop signal arrived. */
export function untilStdioEnd(stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  return new Promise((resolve) => {
    const done = (reason: string): void => {
      stdin.off('end', onEnd);
      stdin.off('close', onClose);
      for (const signal of SIGNALS) process.off(signal, onSignal);
      resolve(reason);
    };
    const onEnd = (): void => done('stdin ended');
    const onClose = (): void => done('stdin closed');
    const onSignal = (signal: NodeJS.Signals): void => done(signal);
    stdin.once('end', onEnd);
    stdin.once('close', onClose);
    for (const signal of SIGNALS) process.once(signal, onSignal);
  });
}

/**
 * Runs the shutdown work with stop signals held off, so a client that sends SIGTERM right after closing
 * stdin does not cut the clean-up short (containers would be left to the reaper). SIGKILL still ends it.
 */
export async function whileShuttingDown<T>(work: () => Promise<T>): Promise<T> {
  const hold = (): void => undefined;
  for (const signal of SIGNALS) process.on(signal, hold);
  try {
    return await work();
  } finally {
    for (const signal of SIGNALS) process.off(signal, hold);
  }
}
