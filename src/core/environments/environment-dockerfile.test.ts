import { describe, expect, it } from 'vitest';
import { resolveDefinition } from '../../shared/domain/environment';
import type { Environment } from '../../shared/domain/environment';
import { environmentDockerfile, failedPackageFrom } from './environment-dockerfile';

const URLS = { pipIndexUrl: 'http://index.test:8080/simple', npmRegistryUrl: 'https://registry.test/', cranRepositoryUrl: 'https://cran.test/' };

function environment(definition: Parameters<typeof resolveDefinition>[0]): Environment {
  return { ...resolveDefinition(definition), id: 'e1', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', preset: false };
}

describe('environmentDockerfile', () => {
  it("writes each manager's lines in exec form, the system's first, from the indexes the settings name", () => {
    const env = environment({ name: 'x', language: 'python', packages: { pip: ['numpy==2.1.0'], apt: ['jq'] } });
    expect(environmentDockerfile(env, 'sandpit/python:abc', URLS).split('\n')).toEqual([
      'FROM sandpit/python:abc',
      'USER root',
      'RUN ["apt-get","update"]',
      'RUN ["apt-get","install","-y","--no-install-recommends","jq"]',
      'RUN ["rm","-rf","/var/lib/apt/lists"]',
      'RUN ["/opt/sandpit/venv/bin/python3","-m","pip","install","--no-cache-dir","--disable-pip-version-check","--no-input","--index-url","http://index.test:8080/simple","--trusted-host","index.test","--","numpy==2.1.0"]',
      'USER 10001:10001',
      '',
    ]);
  });

  it('bakes npm packages beside the session store, on NODE_PATH', () => {
    const env = environment({ name: 'x', language: 'javascript', packages: { npm: ['lodash@4'] } });
    expect(environmentDockerfile(env, 'sandpit/node:abc', URLS)).toContain(
      'RUN ["npm","install","--prefix","/opt/sandpit/env","--no-audit","--no-fund","--no-package-lock","--registry","https://registry.test/","--","lodash@4"]\nENV NODE_PATH=/opt/sandpit/packages/node_modules:/opt/sandpit/env/node_modules\n',
    );
  });

  it("bakes an R environment's packages as Debian's r-cran-* builds", () => {
    const env = environment({ name: 'x', language: 'r', packages: { cran: ['ggplot2', 'data.table'] } });
    expect(environmentDockerfile(env, 'sandpit/r:abc', URLS)).toContain(
      'RUN ["apt-get","update"]\nRUN ["apt-get","install","-y","--no-install-recommends","r-cran-ggplot2","r-cran-data.table"]\nRUN ["rm","-rf","/var/lib/apt/lists"]\n',
    );
  });

  it('names the package an installer could not find, as the person wrote it', () => {
    const env = environment({ name: 'x', language: 'python', packages: { pip: ['Sandpit_Missing==1.0'], apt: ['jq'] } });
    expect(failedPackageFrom(['ERROR: No matching distribution found for sandpit_missing==1.0'], env)).toBe('Sandpit_Missing==1.0');
    expect(failedPackageFrom(['E: Unable to locate package jq'], env)).toBe('jq');
    expect(failedPackageFrom(['all fine'], env)).toBeUndefined();
  });
});
