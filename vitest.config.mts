import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'executor-image/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['**/*.docker.test.ts', '**/*.mcp.test.ts', 'node_modules/**'],
          environment: 'node',
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'docker',
          include: ['src/**/*.docker.test.ts', 'executor-image/**/*.docker.test.ts'],
          environment: 'node',
          globalSetup: ['src/test-support/docker-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
