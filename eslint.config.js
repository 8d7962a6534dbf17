// ESLint flat config: eslint's recommended rules for every file, typescript-eslint's type-checked
// rules for TypeScript (each file is checked with the tsconfig.json nearest to it).
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'
import layers from './scripts/layers.cjs'

// Node's globals, written out so that no extra package is needed for them.
const nodeGlobals = Object.fromEntries(
  [
    'AbortController',
    'AbortSignal',
    'Buffer',
    'atob',
    'btoa',
    'TextDecoder',
    'TextEncoder',
    'URL',
    'URLSearchParams',
    'clearImmediate',
    'clearInterval',
    'clearTimeout',
    'console',
    'fetch',
    'globalThis',
    'performance',
    'process',
    'queueMicrotask',
    'setImmediate',
    'setInterval',
    'setTimeout',
    'structuredClone',
  ].map((name) => [name, 'readonly']),
)
const commonJsGlobals = { require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', __filename: 'readonly' }

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'docs/api/', '.examples-build/'] },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { ecmaVersion: 2023, globals: nodeGlobals },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...nodeGlobals, ...commonJsGlobals } },
  },
  {
    files: ['**/*.{ts,mts,cts}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['tsup.config.ts', 'scripts/dedent-build.d.mts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // An abort's `signal.reason` is typed `any`; the library's own aborts always carry an Error.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Tests feed the client hostile input and read JSON off the wire: `any` is their material.
    files: ['test/**/*.{ts,mts,cts}', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      // Fake fetches are async functions that need no await.
      '@typescript-eslint/require-await': 'off',
      // expect(analytics.track).toThrow(…) and friends pass methods on purpose.
      '@typescript-eslint/unbound-method': 'off',
      // Expected terminal output is column-aligned: its runs of spaces are the point.
      'no-regex-spaces': 'off',
    },
  },
  {
    // Type tests declare values only to look at their types.
    files: ['test/types/*.ts'],
    rules: { '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    // The CommonJS consumer of the packed package: require() is what it tests.
    files: ['test/package/fixtures/*.cts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The layers of src/ (scripts/layers.cjs): no import points up the list.
  ...layers.layerRules(),
)
