import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { layerConfigs } from './import-layers.mjs';

const root = resolve(import.meta.dirname, '..');

/** The layer rules alone (no type information needed), over a file that is not on disk. */
const layers = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.{ts,tsx}'], languageOptions: { parser: tseslint.parser } }, ...layerConfigs()],
});

async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await layers.lintText(code, { filePath: resolve(root, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the import layers', () => {
  it.each([
    ['src/core/api/new-handler.ts', "import { LABEL } from '../docker/labels';\n", /src\/core\/api may import only/],
    ['src/core/mcp/tools/new-tool.ts', "import { openEngine } from '../../docker/open-engine';\n", /src\/core\/mcp may import only/],
    ['src/core/environments/new-step.ts', "import type { DockerClient } from '../docker/docker-client';\n", /src\/core\/environments may import only/],
    ['src/core/docker/new-part.ts', "import type { SessionManager } from '../sessions/session-manager';\n", /src\/core\/docker may import only/],
    ['src/core/sandbox/new-port.ts', "import type { DockerClient } from '../docker/docker-client';\n", /src\/core\/sandbox may import only src\/shared/],
    ['src/core/sessions/new-part.ts', "import type { Handlers } from '../api/api-types';\n", /src\/core\/sessions may import only/],
    ['src/core/http/new-route.ts', "import type { Session } from '../sessions/session';\n", /src\/core\/http may import only/],
    ['src/core/files/new-part.ts', "import { createSandpit } from '../app';\n", /src\/core\/files may import only util/],
    ['src/core/sessions/new-part.ts', "import Docker from 'dockerode';\n", /only src\/core\/docker\/ talks to the Docker engine/],
    ['src/core/util/new-part.ts', "import { app } from 'electron';\n", /never import electron/],
    ['src/core/util/new-part.ts', "import { runServe } from '../../cli/serve';\n", /never imports the desktop app, the panel or the CLI/],
    ['src/cli/new-command.ts', "import { openEngine } from '../core/docker/open-engine';\n", /the CLI: the engine is reached through src\/core\/boot.ts/],
    ['src/main/new-part.ts', "import { openEngine } from '../core/docker/open-engine';\n", /the desktop app: the engine is reached through src\/core\/boot.ts/],
    ['src/shared/domain/new-type.ts', "import { readFile } from 'node:fs/promises';\n", /no Node modules/],
    ['src/shared/domain/new-type.ts', "import type { Sandpit } from '../../core/app';\n", /imports nothing of the rooms that use it/],
    ['src/renderer/src/features/new/new-screen.tsx', "import { SessionManager } from '../../../../core/sessions/session-manager';\n", /only through the contract/],
  ])('refuses %s importing across its layer', async (file, code, message) => {
    const found = await refusals(file, code);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it.each([
    ['src/core/app.ts', "import { DockerBackend } from './docker/docker-backend';\n"],
    ['src/core/boot.ts', "import { openEngine } from './docker/open-engine';\n"],
    ['src/core/docker/new-part.ts', "import type { SandboxBackend } from '../sandbox/sandbox-backend';\nimport Docker from 'dockerode';\n"],
    ['src/core/api/new-handler.ts', "import { SandpitError } from '../../shared/api/errors';\nimport type { SessionManager } from '../sessions/session-manager';\n"],
    ['src/cli/new-command.ts', "import { bootSandpit } from '../core/boot';\n"],
    ['src/core/docker/new-part.test.ts', "import type { SessionManager } from '../sessions/session-manager';\n"],
  ])('lets %s import what its layer allows', async (file, code) => {
    expect(await refusals(file, code)).toEqual([]);
  });

  it('is what the project lint runs (eslint.config.mjs carries the same rule for each room)', async () => {
    const project = new ESLint({ cwd: root });
    for (const file of ['src/core/api/sandpit-api.ts', 'src/core/docker/docker-backend.ts', 'src/core/boot.ts', 'src/cli/serve.ts']) {
      const mine = (await layers.calculateConfigForFile(resolve(root, file))) as { rules?: Record<string, unknown> };
      const theirs = (await project.calculateConfigForFile(resolve(root, file))) as { rules?: Record<string, unknown> };
      expect(theirs.rules?.['no-restricted-imports']).toEqual(mine.rules?.['no-restricted-imports']);
      expect(mine.rules?.['no-restricted-imports']).toBeDefined();
    }
  });
});
