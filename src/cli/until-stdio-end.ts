const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves with the reason once the MCP client is gone: `ended` resolved (the stdio transport saw stdin end
 * or close, or stdout fail) or a stop signal arrived.
 */
export function untilStdioEnd(ended: Promise<string>): Promise<string> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (reason: string): void => {
      if (settled) return;
      settled = true;
      for (const signal of SIGNALS) process.off(signal, onSignal);
      resolve(reason);
    };
    const onSignal = (signal: NodeJS.Signals): void => done(signal);
    for (const signal of SIGNALS) process.once(signal, onSignal);
    void ended.then(done);
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
