// ESLint flat config: eslint's recommended rules for every file, typescript-eslint's type-checked
// rules for TypeScript (each file is checked with the tsconfig.json nearest to it).
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'

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
      parserOptions: { projectService: { allowDefaultProject: ['tsup.config.ts'] }, tsconfigRootDir: import.meta.dirname },
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
    // Not fixed yet, because the performance work on another branch is changing these files. What
    // clears each rule (then delete this block):
    // - analytics.ts: `callback(error, batch as Message[])` → `callback(error, batch)`.
    // - message/normalize.ts: type the validated fields once where they are destructured
    //   (messageId string, timestamp Date | string, context object) and drop the String() and
    //   `as object` on them; convert an id only `if (typeof value === 'number')`.
    // - message/validate.ts: `isEnumerableOwn` is only used with .call(): disable unbound-method on it.
    // - observe.ts: `listener as Listener<never>` → `listener` (twice).
    // - types.ts: `{} extends P` asks whether every property of P is optional: disable
    //   no-empty-object-type on that line.
    files: ['src/analytics.ts', 'src/message/normalize.ts', 'src/message/validate.ts', 'src/observe.ts', 'src/types.ts'],
    rules: {
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-empty-object-type': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The CommonJS consumer of the packed package: require() is what it tests.
    files: ['test/package/fixtures/*.cts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
)
