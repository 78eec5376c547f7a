// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Feature folders under src/ (docs/architecture.md, "Layers"). Shared code imports none of them.
const FEATURES = [
  'auth',
  'checkin',
  'cli',
  'clients',
  'combos',
  'console',
  'demo',
  'gate',
  'http',
  'import',
  'orders',
  'retention',
  'sync',
  'tenants',
];
const featureImports = (prefix) => FEATURES.map((f) => `${prefix}${f}/**`);
const shared = (from, extra = []) => ({
  patterns: [
    {
      group: [...featureImports(from), ...extra],
      message:
        'Shared code (src/lib, src/db, src/clock.ts, src/config.ts, migrations) must not import a feature folder: move the shared part down instead.',
    },
  ],
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'firmware-bridge/**', 'src/console/web/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      // `_`-prefixed names are deliberate (a signature to fit, a value to skip).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Prettier wraps code at 120 columns but not comments; prose and SQL inside strings stay whole.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true },
      ],
    },
  },
  {
    // Tests read JSON answers off the wire and poke at private shapes on purpose.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // A feature uses another feature's service and published types, never its routes file.
    files: ['src/*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*/*.routes.js'],
              message: "Another feature's routes are its door: import its service, payload or types instead.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/lib/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', shared('../', ['../*.js', '!../lib/**'])] },
  },
  { files: ['src/db/**/*.ts'], rules: { 'no-restricted-imports': ['error', shared('../')] } },
  { files: ['src/clock.ts', 'src/config.ts'], rules: { 'no-restricted-imports': ['error', shared('./')] } },
  { files: ['migrations/**/*.ts'], rules: { 'no-restricted-imports': ['error', shared('../src/')] } },
  {
    // The console's browser code reads the server's answer schemas for their types only: a value import
    // would bundle zod and the schemas into app.js (docs/api.md, "One schema per answer").
    files: ['src/console/web/**/*.ts', 'src/console/web/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/*.answers', '**/*.answers.js', 'zod'],
              allowTypeImports: true,
              message: 'The browser code takes the answers as types only: `import type`.',
            },
          ],
        },
      ],
    },
  },
);
