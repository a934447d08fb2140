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
