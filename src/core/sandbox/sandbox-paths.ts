/** Where things are inside every sandbox, whatever engine runs it (the images make these folders). */
export const WORKSPACE_DIR = '/workspace';
/** Where runtime-installed packages live (on the session's import path: PYTHONPATH / NODE_PATH). */
export const PACKAGES_DIR = '/opt/sandpit/packages';
/** The agent's folder (its unix socket, when the channel is a socket). */
export const AGENT_DIR = '/run/sandpit';
