// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import structure from './eslint/no-import-cycle.js';

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
  'site',
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

// A feature uses another feature's service and published types, never its routes file (from a
// feature's own subfolders too, e.g. src/gate/lanes).
const routesRule = {
  group: ['../*/*.routes.js', '../../*/*.routes.js', '../../../*/*.routes.js'],
  message: "Another feature's routes are its door: import its service, payload or types instead.",
};

// The gate's rooms (docs/lanes.md, "Rooms of src/gate"): serial ← relays ← lanes ← the door and the
// wiring (src/gate/*.ts). A file `depth` folders under src/gate imports none of the rooms above it,
// not the gate's top level, and no other feature folder: what a driver and a lane share lives in the
// relay contract (src/gate/relays/relay.ts).
const up = (n) => '../'.repeat(n);
const gateRoom = (depth, above, message) => ({
  patterns: [
    routesRule,
    {
      group: [`${up(depth)}*.js`, ...above.map((room) => `${up(depth)}${room}/**`), ...featureImports(up(depth + 1))],
      message,
    },
  ],
});
const DRIVER_RULE =
  'A relay driver never imports the lanes, the gate door or wiring, or another feature: move what it needs down into the relay contract (src/gate/relays/relay.ts, relay-config.ts).';
const LANES_RULE =
  'The lanes know a relay only by its contract (src/gate/relays/relay.ts, relay-config.ts) and a port only as a ByteLink: the drivers, the ports and the door are wired by src/gate/devices.ts and register.ts.';
const SERIAL_RULE =
  'The serial layer knows no relay, lane or feature: it moves bytes (src/gate/serial/byte-link.ts is its contract).';

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
    files: ['src/*/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [routesRule] }] },
  },
  {
    files: ['src/gate/relays/*.ts'],
    rules: { 'no-restricted-imports': ['error', gateRoom(1, ['lanes'], DRIVER_RULE)] },
  },
  {
    files: ['src/gate/relays/*/*.ts'],
    rules: { 'no-restricted-imports': ['error', gateRoom(2, ['lanes'], DRIVER_RULE)] },
  },
  {
    files: ['src/gate/lanes/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            routesRule,
            {
              group: ['../*.js', '../relays/*/**', '../serial/**', '!../serial/byte-link.js'],
              message: LANES_RULE,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/gate/serial/*.ts'],
    rules: { 'no-restricted-imports': ['error', gateRoom(1, ['lanes', 'relays'], SERIAL_RULE)] },
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
  {
    // docs/architecture.md, "Size and shape": a file a reader can hold, a function a reader can follow, and imports
    // that never come back round (type imports included).
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { structure },
    rules: {
      'structure/no-import-cycle': 'error',
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  {
    // The check-in decision rules are pure (docs/architecture.md): a browser bundle (a handheld
    // deciding offline) carries them unchanged. Nothing but their own folder and src/lib, no Node
    // built-in, no package, no I/O, no clock or randomness of their own: facts come in as arguments.
    files: ['src/checkin/rules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./[\\w.-]+$|\\.\\./\\.\\./lib/[\\w.-]+$)',
              message:
                'The check-in rules are pure: import only from src/checkin/rules/ and src/lib/ (no Node built-in, no package, no other folder).',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'global', 'globalThis', 'require', 'module', '__dirname', '__filename'].map(
          (name) => ({ name, message: 'The check-in rules are pure: no Node globals.' }),
        ),
        ...['setTimeout', 'setInterval', 'setImmediate', 'fetch', 'performance', 'console'].map((name) => ({
          name,
          message: 'The check-in rules are pure: no I/O and no timers; take facts as arguments.',
        })),
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'The check-in rules read no clock: take `today` as a fact.' },
        { object: 'Math', property: 'random', message: 'The check-in rules are deterministic.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportExpression', message: 'The check-in rules are pure: no dynamic import.' },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'The check-in rules read no clock: take `today` as a fact.',
        },
      ],
    },
  },
  {
    // The console's browser code reads the server's answer schemas for their types only: a value import
    // would bundle zod and the schemas into app.js (docs/api.md, "One schema per answer").
    files: [
      'src/console/web/**/*.ts',
      'src/console/web/**/*.tsx',
      'src/handheld/web/**/*.ts',
      'src/handheld/web/**/*.tsx',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/*.answers', '**/*.answers.js', '**/*.schemas', '**/*.schemas.js', 'zod'],
              allowTypeImports: true,
              message: 'The browser code takes the answers as types only: `import type`.',
            },
          ],
        },
      ],
    },
  },
);
