import { PANEL_CSP } from '../shared/panel-csp';

export { PANEL_CSP };

export type ResponseHeaders = Record<string, string[]>;

/** The response headers with our CSP replacing any the response already had (header names are case-insensitive). */
export function withPanelCsp(headers: ResponseHeaders | undefined): ResponseHeaders {
  const out: ResponseHeaders = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [PANEL_CSP];
  return out;
}
