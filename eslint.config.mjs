import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { layerConfigs } from './scripts/import-layers.mjs';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'reports/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.mjs', 'scripts/*.mjs', 'bin/*.mjs'], maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16 }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      // Handlers implement an async contract even when a body has nothing to await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
    },
  },
  {
    files: ['src/core/**', 'src/main/**', 'src/cli/**', 'src/shared/**'],
    rules: { 'no-console': ['error', { allow: ['error', 'warn'] }] },
  },
  {
    files: ['src/core/**', 'src/shared/**', 'src/cli/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'core, shared and cli never import electron' }] }] },
  },
  // Who may import whom: one rule per room (scripts/import-layers.mjs), after the one above so it carries electron's too.
  ...layerConfigs(),
  {
    files: ['**/*.mjs', 'scripts/**', 'bin/**'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  // The in-container JavaScript agent: plain CommonJS for Node >= 18, outside the TypeScript project.
  {
    files: ['executor-image/agents/javascript/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['executor-image/agents/javascript/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
