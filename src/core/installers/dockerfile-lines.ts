/** A Dockerfile `RUN` in exec form: a JSON argv, never a shell line, so nothing in a validated name can be injected. */
export function runLine(argv: string[]): string {
  return `RUN ${JSON.stringify(argv)}`;
}
