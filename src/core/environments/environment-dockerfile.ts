import type { Environment } from '../../shared/domain/environment';
import { parsePackageSpec } from '../installers/package-specs';

export interface DockerfileSettings {
  pipIndexUrl: string;
  npmRegistryUrl: string;
}

/** Where an environment's npm packages are baked (on NODE_PATH; runtime installs go to the session volume). */
export const ENV_NODE_MODULES = '/opt/sandpit/env/node_modules';

const run = (argv: string[]): string => `RUN ${JSON.stringify(argv)}`;

/**
 * The Dockerfile of an environment image: the executor image plus its packages. Every RUN is in exec
 * form (a JSON argv, never a shell line) and every name was validated, so nothing can be injected.
 */
export function environmentDockerfile(env: Environment, baseImage: string, settings: DockerfileSettings): string {
  const lines = [`FROM ${baseImage}`, 'USER root'];
  const { apt, pip, npm } = env.packages;
  if (apt.length > 0) {
    lines.push(run(['apt-get', 'update']));
    lines.push(run(['apt-get', 'install', '-y', '--no-install-recommends', ...apt]));
    lines.push(run(['rm', '-rf', '/var/lib/apt/lists']));
  }
  if (pip.length > 0) {
    const index = new URL(settings.pipIndexUrl);
    const trusted = index.protocol === 'http:' ? ['--trusted-host', index.hostname] : [];
    const specs = pip.map((p) => parsePackageSpec(p, 'pip').raw);
    lines.push(run(['/opt/sandpit/venv/bin/python3', '-m', 'pip', 'install', '--no-cache-dir', '--disable-pip-version-check', '--no-input', '--index-url', settings.pipIndexUrl, ...trusted, '--', ...specs]));
  }
  if (npm.length > 0) {
    const specs = npm.map((p) => parsePackageSpec(p, 'npm').raw);
    lines.push(run(['mkdir', '-p', ENV_NODE_MODULES]));
    lines.push(run(['npm', 'install', '--prefix', '/opt/sandpit/env', '--no-audit', '--no-fund', '--no-package-lock', '--registry', settings.npmRegistryUrl, '--', ...specs]));
    lines.push(`ENV NODE_PATH=/opt/sandpit/packages/node_modules:${ENV_NODE_MODULES}`);
  }
  lines.push('USER 10001:10001');
  return `${lines.join('\n')}\n`;
}

/** The package a failed build was installing, read from the installers' messages. */
export function failedPackageFrom(lines: string[], env: Environment): string | undefined {
  const text = lines.join('\n');
  const patterns = [
    /No matching distribution found for ([A-Za-z0-9._-]+)/,
    /Could not find a version that satisfies the requirement ([A-Za-z0-9._-]+)/,
    /404 Not Found - GET \S+\/(@?[a-z0-9._~/-]+?)(?:\/-\/|\s|$)/,
    /E: Unable to locate package ([a-z0-9+.-]+)/,
  ];
  for (const pattern of patterns) {
    const m = pattern.exec(text);
    if (m?.[1]) {
      const name = decodeURIComponent(m[1]);
      const all = [...env.packages.pip, ...env.packages.npm, ...env.packages.apt];
      return all.find((p) => p.toLowerCase().startsWith(name.toLowerCase())) ?? name;
    }
  }
  return undefined;
}
