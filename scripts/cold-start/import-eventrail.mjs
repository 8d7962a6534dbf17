// `import 'eventrail'`, from the built package.
await import('../../dist/index.js')
