import type { IncomingMessage, ServerResponse } from 'node:http';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** What a handler gets besides the raw request and response. */
export interface RouteContext {
  /** Who is calling: a stable, non-secret id derived from the bearer token ('public' on public routes). */
  principal: string;
  /** The parsed JSON body of POST/PUT/PATCH (undefined when the body was empty). */
  body?: unknown;
  /** The request URL, parsed (path and query). */
  url: URL;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => Promise<void>;

export interface HttpRoute {
  /** `/execute`, `/mcp` … */
  path: string;
  methods: readonly HttpMethod[];
  handler: RouteHandler;
  /** `prefix` also serves every path below `path` + '/'. Default: exactly `path`. */
  match?: 'exact' | 'prefix';
  /** Served without a token (Host and Origin are still checked). Only for routes that reveal nothing. */
  public?: boolean;
  /** The web panel's own API: only the panel token opens it (the clients' token gets 403). */
  panel?: boolean;
  /** Methods that hold a long-lived stream (SSE): they count against the stream limit instead. */
  streams?: readonly HttpMethod[];
}

export interface Router {
  find(path: string): HttpRoute | undefined;
}

/** Exact paths first, then the longest matching prefix. Two routes on one path are a startup error. */
export function createRouter(routes: readonly HttpRoute[]): Router {
  const exact = new Map<string, HttpRoute>();
  const prefixes: HttpRoute[] = [];
  for (const route of routes) {
    if (!route.path.startsWith('/')) throw new Error(`Route path "${route.path}" must start with "/".`);
    const clash = route.match === 'prefix' ? prefixes.find((r) => r.path === route.path) : exact.get(route.path);
    if (clash) throw new Error(`Two HTTP routes claim ${route.path}.`);
    if (route.match === 'prefix') prefixes.push(route);
    else exact.set(route.path, route);
  }
  prefixes.sort((a, b) => b.path.length - a.path.length);
  return {
    find: (path) =>
      exact.get(path) ??
      prefixes.find((r) => path === r.path || path.startsWith(r.path.endsWith('/') ? r.path : `${r.path}/`)),
  };
}

export function isHttpMethod(method: string | undefined): method is HttpMethod {
  return (HTTP_METHODS as readonly string[]).includes(method ?? '');
}
