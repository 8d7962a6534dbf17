/**
 * A serverless handler (AWS Lambda, Google Cloud Functions, Vercel …): it awaits `flush()` before
 * returning, because the platform may freeze or end the process as soon as the handler returns.
 *
 *   npx eventrail dev                                  a local collector on http://127.0.0.1:4040
 *   npx tsc -p examples && node .examples-build/serverless.js
 */
import { fileURLToPath } from 'node:url'
import { Analytics } from 'eventrail'

// Created once per container and reused by every invocation it serves; creating it costs no
// timer and no socket, so cold starts stay short.
const analytics = new Analytics(process.env.EVENTRAIL_WRITE_KEY ?? 'DEMO_WRITE_KEY', {
  host: process.env.EVENTRAIL_HOST ?? 'http://127.0.0.1:4040',
  // An analytics outage must not fail the function: report it and carry on.
  errorHandler: (err) => console.error(`analytics: ${err.message}`),
})

/** What this function receives. */
export interface ReportRequest {
  userId: string
  format: 'pdf' | 'csv'
}

/** The handler the platform calls once per invocation. */
export async function handler(event: ReportRequest): Promise<{ statusCode: number; body: string }> {
  analytics.track({ userId: event.userId, event: 'Report Requested', properties: { format: event.format } })
  const pages = event.format === 'pdf' ? 12 : 1 // the function's real work
  analytics.track({ userId: event.userId, event: 'Report Generated', properties: { format: event.format, pages } })

  // Every message enqueued above has an outcome when this resolves: nothing is left in memory
  // for a frozen process to lose.
  await analytics.flush()
  return { statusCode: 200, body: JSON.stringify({ pages }) }
}

// Run directly, invoke the handler once the way a platform would: it ends the process as soon as
// the handler returns, without waiting for anything else.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const response = await handler({ userId: 'user-42', format: 'pdf' })
  console.log(JSON.stringify(response))
  process.exit(0)
}
