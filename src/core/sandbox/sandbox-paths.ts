/** Where things are inside every sandbox, whatever engine runs it (the images make these folders). */
export const WORKSPACE_DIR = '/workspace';
/** Where runtime-installed packages live (on the session's import path: PYTHONPATH / NODE_PATH). */
export const PACKAGES_DIR = '/opt/sandpit/packages';
/** The agent's folder (its unix socket, when the channel is a socket). */
export const AGENT_DIR = '/run/sandpit';

/** Secrets (issue 18): where a sandbox that may use secrets finds the CA bundle (read-only). */
export const SANDPIT_CA_DIR = '/etc/sandpit-ca';
export const SANDPIT_CA_BUNDLE = `${SANDPIT_CA_DIR}/ca-bundle.pem`;

/** Every common TLS client (OpenSSL, Python requests, curl, Node, pip, npm) pointed at that bundle. */
export const CA_TRUST_ENV: Readonly<Record<string, string>> = {
  SSL_CERT_FILE: SANDPIT_CA_BUNDLE,
  REQUESTS_CA_BUNDLE: SANDPIT_CA_BUNDLE,
  CURL_CA_BUNDLE: SANDPIT_CA_BUNDLE,
  NODE_EXTRA_CA_CERTS: SANDPIT_CA_BUNDLE,
  PIP_CERT: SANDPIT_CA_BUNDLE,
  npm_config_cafile: SANDPIT_CA_BUNDLE,
};
