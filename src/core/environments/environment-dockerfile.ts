import type { Environment } from '../../shared/domain/environment';
import { IMAGE_ORDER, PACKAGE_MANAGERS, allPackages } from '../../shared/domain/package-managers';
import type { IndexSetting } from '../../shared/domain/package-managers';
import { MANAGER_TOOLS } from '../installers/installers';
import { parsePackageSpec } from '../installers/package-specs';

/** The index URLs an image build installs from (the registry's index settings). */
export type DockerfileSettings = Readonly<Record<IndexSetting, string>>;

/**
 * The Dockerfile of an environment image: the executor image plus its packages, each manager's lines in the
 * registry's image order (the system's layer first: libraries the others may build against). Every RUN is in
 * exec form (a JSON argv, never a shell line) and every spec is validated again, so nothing can be injected.
 */
export function environmentDockerfile(env: Environment, baseImage: string, settings: DockerfileSettings): string {
  const lines = [`FROM ${baseImage}`, 'USER root'];
  for (const manager of IMAGE_ORDER) {
    const listed = env.packages[manager];
    if (listed.length === 0) continue;
    lines.push(...MANAGER_TOOLS[manager].dockerfile(listed.map((p) => parsePackageSpec(p, manager).raw), settings));
  }
  lines.push('USER 10001:10001');
  return `${lines.join('\n')}\n`;
}

/**
 * The package a failed build was installing, read from the installers' messages (each manager's words for one it
 * cannot find; the languages' managers first, since they may build through the system's).
 */
export function failedPackageFrom(lines: string[], env: Environment): string | undefined {
  const text = lines.join('\n');
  for (const pattern of [...IMAGE_ORDER].reverse().flatMap((m) => PACKAGE_MANAGERS[m].notFound)) {
    const m = pattern.exec(text);
    if (m?.[1]) {
      const name = decodeURIComponent(m[1]);
      return allPackages(env.packages).find((p) => p.toLowerCase().startsWith(name.toLowerCase())) ?? name;
    }
  }
  return undefined;
}
