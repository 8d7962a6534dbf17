/**
 * The key of `Analytics`' internal method that queues a parsed line of JSON text (see
 * `prepareParsedLine`), for `importMessages`. A registered symbol, so that two copies of the
 * package (two installed versions, a bundle beside it) find each other's; it is not part of the public API.
 * @internal
 */
export const QUEUE_PARSED_LINE: unique symbol = Symbol.for('eventrail.queueParsedLine') as never

/**
 * The key of `Analytics`' internal method that gives `importMessages` the client to import through:
 * the client itself when it has neither plugins nor a `context` option, else a view whose messages
 * are marked as imported (`via: 'import'` for plugins) and skip the plugins when the import opts out.
 * @internal
 */
export const IMPORT_VIEW: unique symbol = Symbol.for('eventrail.importView') as never

/**
 * The key of `Analytics`' internal method that gives the client its ambient source: what
 * `eventrail/context` installs so that messages made inside a request's context get its identity,
 * context and consent (see `client/ambient.ts`). A registered symbol, so that the ESM and
 * CommonJS builds of the package find each other's.
 * @internal
 */
export const AMBIENT_SOURCE: unique symbol = Symbol.for('eventrail.ambientSource') as never
