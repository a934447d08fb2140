import { loadOrCreateToken, rotateToken, tokenPath } from '../http/token';
import type { Logger } from '../log';

/** The part of a running HTTP server the endpoint needs: its URL and a way to switch its token. */
export interface TokenHolder {
  url: string;
  setToken(token: string): void;
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

  /** A fresh token in the token file, in force on the server at once: the old one is refused from now on. */
  async rotate(): Promise<string> {
    const token = await rotateToken(this.home);
    this.server?.setToken(token);
    this.log?.info('access token rotated', { path: this.tokenFile, serving: this.server !== undefined });
    return token;
  }
}
