import { SANDPIT_VERSION } from '../version';

/*
 * What Sandpit's MCP server says about itself in its `initialize` result: one declaration, used by the
 * server (create-mcp-server.ts) and by `sandpit mcp`'s early answer (src/cli/early-initialize.ts), which
 * answers before the SDK is loaded. No runtime import of the SDK here: loading it is what the early
 * answer saves.
 */

export const SERVER_INFO = { name: 'sandpit', title: 'Sandpit', version: SANDPIT_VERSION } as const;

/** Tools and resources are registered at start; their lists can change (listChanged). */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true },
  logging: {},
  /** MCP Tasks (2025-11-25): the run tools take task augmentation; tasks can be listed and cancelled (issue 23). */
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
} as const;

export const INSTRUCTIONS = [
  'Sandpit runs code for you in isolated sandboxes (containers without network access) on this computer.',
  'Call execute_code to run Python: variables, imports and files in /workspace persist between calls, and without session_id your own default session is used, so you rarely need create_session.',
  'The person may have prepared environments (packages, network, limits) in the Sandpit panel: list_environments shows them, and create_session environment=<id or name> starts a session from one.',
  'Build larger programs with write_file (append: true for pieces) and run them with run_file or run_command; add libraries with install_packages (check_packages first).',
  'Results include stdout, stderr, the last expression, tracebacks and pictures; files a run saves come back as sandpit://artifacts/… resource links that stay readable after the session ends.',
  'For work that takes minutes (training, test suites, scrapes), pass background: true to execute_code, run_command or run_file: the call returns a run_id at once; follow it with get_run (wait_seconds waits for news) and stop it with cancel_run.',
].join(' ');

/**
 * The protocol versions the bundled SDK's server accepts, newest first (the SDK's
 * SUPPORTED_PROTOCOL_VERSIONS; server-identity.test.ts fails when an SDK update changes them).
 */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

/** The version the server answers with: the client's when supported, else the newest (as the SDK does). */
export function negotiatedProtocolVersion(requested: string): string {
  return (PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : PROTOCOL_VERSIONS[0];
}
