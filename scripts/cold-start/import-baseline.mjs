// The import baseline: the built-ins the least client needs.
await import('node:http')
await import('node:crypto')
