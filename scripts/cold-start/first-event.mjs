// The first event with eventrail, from the built package: import, construct, track, flush; the
// process ends when the answer has come. With --phases, prints where the time went (ms).
const t0 = performance.now()
const { Analytics } = await import('../../dist/index.js')
const t1 = performance.now()
const analytics = new Analytics('key', { host: process.argv[2] })
const t2 = performance.now()
analytics.track({ userId: 'user-1', event: 'Order Completed', properties: { total: 42 } })
const t3 = performance.now()
await analytics.closeAndFlush()
const t4 = performance.now()
if (process.argv.includes('--phases')) {
  const ms = (a, b) => Math.round((b - a) * 100) / 100
  // performance.now() counts from the process's start: t0 is Node's own boot.
  const phases = { nodeBoot: ms(0, t0), import: ms(t0, t1), construct: ms(t1, t2), track: ms(t2, t3), firstSendToAnswer: ms(t3, t4) }
  console.log(JSON.stringify(phases))
}
