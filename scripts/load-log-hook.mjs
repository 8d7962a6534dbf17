// A module-loader hook (run on Node's hooks thread with `register`) that appends the URL of every
// file the ESM loader loads to the file `data.log`: what an import really evaluates. Used by
// scripts/import-footprint.mjs and by the spool's loading test (test/spool/fixtures/load.mjs).
export const LOAD_LOG_HOOKS = `
import { appendFileSync } from 'node:fs'
let log
export function initialize(data) { log = data.log }
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(log, url + '\\n')
  return next(url, context)
}`
