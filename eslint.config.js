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
  'operators',
  'orders',
  'retention',
  'status',
  'sync',
  'tenants',
];
const featureImports = (prefix, features = FEATURES) => features.map((f) => `${prefix}${f}/**`);
const shared = (from, extra = [], features = FEATURES) => ({
  patterns: [
    {
      group: [...featureImports(from, features), ...extra],
      message:
        'Shared code (src/lib, src/db, src/http, src/operators, src/clock.ts, src/config.ts, migrations) must not import a feature folder: move the shared part down instead.',
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
  {
    // The HTTP plumbing every door uses (errors, connections, validation, OpenAPI): below the features and the box.
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        shared(
          '../',
          ['../app.js', '../box*.js', '../main.js', '../cli.js'],
          FEATURES.filter((f) => f !== 'http'),
        ),
      ],
    },
  },
  {
    // The staff's accounts, shared by the console, the CLI and the demo seed: they depend on the database only.
    files: ['src/operators/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        shared(
          '../',
          [],
          FEATURES.filter((f) => f !== 'operators'),
        ),
      ],
    },
  },
  { files: ['src/clock.ts', 'src/config.ts'], rules: { 'no-restricted-imports': ['error', shared('./')] } },
  { files: ['migrations/**/*.ts'], rules: { 'no-restricted-imports': ['error', shared('../src/')] } },
);
