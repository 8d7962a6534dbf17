/**
 * The key of `Analytics`' internal method that queues a parsed line of JSON text (see
 * `prepareParsedLine`), for `importMessages`. A registered symbol, so that the ESM and CommonJS
 * builds of the package find each other's; it is not part of the public API.
 * @internal
 */
export const QUEUE_PARSED_LINE: unique symbol = Symbol.for('eventrail.queueParsedLine') as never
