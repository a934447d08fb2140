/** The panel's own API (`POST /api/<method>` with the panel token), for what a spec or bench need not click through. */
import type { ServerInfo } from './server-info';

interface Envelope {
  ok: boolean;
  value?: unknown;
  error?: { code: string; message: string };
}

export async function callApi(server: ServerInfo, method: string, input: unknown = {}): Promise<unknown> {
  const response = await fetch(`${server.url}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.panelToken}` },
    body: JSON.stringify(input),
  });
  const envelope = (await response.json()) as Envelope;
  if (!envelope.ok) throw new Error(`${method}: ${envelope.error?.code ?? response.status} ${envelope.error?.message ?? ''}`);
  return envelope.value;
}

/** A name no other test (or earlier run) used: specs stay independent on the shared server. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
}
