import { loadOrCreateToken, rotateToken, tokenPath } from './token';
import type { Logger } from '../log';

/** The part of a running HTTP server the endpoint needs: its URL and a way to switch its tokens. */
export interface TokenHolder {
  url: string;
  setToken(token: string): void;
  setPanelToken(token: string): void;
}

/**
 * Where this core is reachable and with which token: the HTTP server that serves it (when one runs)
 * and the data folder's token file. Rotating writes a new token and switches the server at once.
 */
export class ServedEndpoint {
  private server: TokenHolder | undefined;

  constructor(
    private readonly home: string,
    private readonly log?: Logger,
  ) {}

  get tokenFile(): string {
    return tokenPath(this.home);
  }

  /** The serving HTTP server's URL (`http://127.0.0.1:PORT`), or undefined while none serves this core. */
  get url(): string | undefined {
    return this.server?.url;
  }

  /** Records the server that serves this core; returns the detach for when it closes. */
  attach(server: TokenHolder): () => void {
    this.server = server;
    return () => {
      if (this.server === server) this.server = undefined;
    };
  }

  /** The current token (created when there is none yet). */
  token(): Promise<string> {
    return loadOrCreateToken(this.home, this.log);
  }

  /** The web panel's link with its token (the panel's own secret, in the URL fragment), while a server serves this core. */
  async panelLink(): Promise<string | undefined> {
    if (!this.server) return undefined;
    return `${this.server.url}/#token=${await loadOrCreateToken(this.home, this.log, 'panel-token')}`;
  }

  /** A new panel link: open panel tabs with the old one are refused; returns the new link and token. */
  async rotatePanel(): Promise<{ link?: string; token: string }> {
    const token = await rotateToken(this.home, 'panel-token');
    this.server?.setPanelToken(token);
    this.log?.info('panel token rotated', { serving: this.server !== undefined });
    return { ...(this.server ? { link: `${this.server.url}/#token=${token}` } : {}), token };
  }

  /** A fresh token in the token file, in force on the server at once: the old one is refused from now on. */
  async rotate(): Promise<string> {
    const token = await rotateToken(this.home);
    this.server?.setToken(token);
    this.log?.info('access token rotated', { path: this.tokenFile, serving: this.server !== undefined });
    return token;
  }
}
