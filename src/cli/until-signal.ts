/** Resolves on SIGINT/SIGTERM after disposing the core (bounded by a timeout). */
export function untilSignal(dispose: () => Promise<void>, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      dispose().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
