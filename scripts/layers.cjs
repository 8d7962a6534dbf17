// The layers of src/, lowest first: a folder imports only from folders before it in this list (and
// from itself). Only entry points stand at the root of src/. docs/architecture.md draws them.
// eslint.config.js turns this into no-restricted-imports rules; test/architecture/layers.test.ts
// runs them over src/ in `npm test`.
const LAYERS = [
  'core',
  'platform',
  'message',
  'plugins',
  'plan',
  'flow-control',
  'config',
  'pipeline',
  'delivery',
  'queue',
  'durability',
  'client',
  'context',
  'import',
  'cli',
  'collector',
  'testing',
  'otel',
]
// The root's entry points: nothing in a folder imports them.
const ENTRY_POINTS = ['index', 'cli', 'import-entry', 'context-entry']

/** One flat-config block per layer: importing a later layer (or an entry point) is an error. */
function layerRules() {
  return LAYERS.map((layer, i) => {
    const above = [...LAYERS.slice(i + 1), ...ENTRY_POINTS]
    return {
      files: [`src/${layer}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                regex: `^(?:\\.\\./)+(?:${above.join('|')})(?:/|$)`,
                message: `src/${layer}/ may import only from the layers before it (${LAYERS.slice(0, i).join(', ') || 'none'}): see docs/architecture.md`,
              },
            ],
          },
        ],
      },
    }
  })
}

module.exports = { LAYERS, ENTRY_POINTS, layerRules }
