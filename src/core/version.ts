import { version } from '../../package.json';

/** Sandpit's own version (package.json), as /health and the MCP server report it. */
export const SANDPIT_VERSION: string = version;
