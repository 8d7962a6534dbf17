/** The library's name, as sent in `context.library.name` and the `User-Agent` header. */
export const LIBRARY_NAME = 'eventrail'

/** The library's version, as sent in `context.library.version`; kept equal to package.json by a test. */
export const VERSION = '0.1.0'
