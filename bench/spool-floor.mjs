// npm run bench:spool-floor [-- --quick]
//
// The floor of the spool's CPU (issue 31): what scenario 7 of `npm run bench` (client CPU per
// event with `spool: { dir }`, × without) cannot go under while every call writes its record
// before it returns. Four parts, each measured in fresh processes taking turns (bench/lib/spool-floor-child.mjs):
//
//   plain / spool  eventrail with `enable: false` (no request at all), without and with the spool:
//                  the spool's own cost per message, bookkeeping included;
//   write          the bare minimum of that: the same records (the bench's order event, as the
//                  spool frames it) encoded, check-summed (CRC-32) and written with one `write`
//                  each to one file, no client;
//   request        the client's CPU for one more request: 100,000 events sent 50 at a time, then
//                  1,000 at a time (each group awaited with flush()), to the bench's sink.
//
// The floor of scenario 7, from its last full run (bench/results.json): without the spool P µs an
// event and R requests; with it R' requests (each call is slower, so fewer calls share a request
// under the flushAt rule). floor = (P + write + (R' − R) × request / calls) / P.
// Median of 5 runs (--quick: 1). Prints a markdown table.

import { fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startSink } from './lib/sink-process.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const quick = process.argv.includes('--quick')
const runs = quick ? 1 : 5

function child(mode, port) {
  return new Promise((resolve, reject) => {
    const c = fork(join(here, 'lib/spool-floor-child.mjs'), [mode, String(port)], { execArgv: ['--expose-gc'] })
    c.once('message', (m) => resolve(m))
    c.once('error', reject)
    c.once('exit', (code) => code !== 0 && reject(new Error(`${mode} exited with ${code}`)))
  })
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const sink = startSink()
try {
  const port = await sink.ready
  const modes = ['plain', 'spool', 'write', 'request-50', 'request-1000']
  const got = Object.fromEntries(modes.map((m) => [m, []]))
  for (let r = 0; r < runs; r++) {
    for (const mode of modes) {
      const res = await child(mode, port)
      got[mode].push(res)
      console.error(`  ${mode} · run ${r + 1}/${runs} · ${res.cpuUs.toFixed(2)} µs`)
    }
  }
  const us = (mode) => median(got[mode].map((x) => x.cpuUs))
  const sys = (mode) => median(got[mode].map((x) => x.sysUs))
  const req = (mode) => median(got[mode].map((x) => x.requests))
  const ms = (mode) => median(got[mode].map((x) => x.cpuMs))
  const perRequestUs = ((ms('request-50') - ms('request-1000')) * 1000) / (req('request-50') - req('request-1000'))
  const last = JSON.parse(readFileSync(join(here, 'results.json'), 'utf8')).scenarios.spool
  const P = last.eventrail.cpuUsPerEvent
  const calls = last.eventrail.sent
  const moreRequests = last['eventrail + spool'].requests - last.eventrail.requests
  const floor = (P + us('write') + (moreRequests * perRequestUs) / calls) / P
  const measured = last['eventrail + spool'].cpuUsPerEvent / P

  const out = [
    `Spool floor · Node ${process.version} · ${quick ? 'quick, 1 run' : `median of ${runs} runs`}, fresh processes taking turns`,
    '',
    '| part | CPU (µs) | of which system (µs) |',
    '| --- | ---: | ---: |',
    `| eventrail, enable: false, per event | ${us('plain').toFixed(2)} | ${sys('plain').toFixed(2)} |`,
    `| the same with the spool, per event | ${us('spool').toFixed(2)} | ${sys('spool').toFixed(2)} |`,
    `| the spool's cost per message (the difference) | ${(us('spool') - us('plain')).toFixed(2)} | ${(sys('spool') - sys('plain')).toFixed(2)} |`,
    `| a bare framed record: CRC-32 and one write | ${us('write').toFixed(2)} | ${sys('write').toFixed(2)} |`,
    `| one more request (${req('request-50')} against ${req('request-1000')} requests) | ${perRequestUs.toFixed(0)} | – |`,
    '',
    `Scenario 7's last full run (bench/results.json): without the spool ${P.toFixed(2)} µs an event, ` +
      `${last.eventrail.requests} requests; with it ${last['eventrail + spool'].requests} requests (${moreRequests} more). ` +
      `Floor: (${P.toFixed(2)} + ${us('write').toFixed(2)} + ${moreRequests} × ${perRequestUs.toFixed(0)} µs / ${calls}) / ${P.toFixed(2)} = ` +
      `**${floor.toFixed(2)}×**; measured **${measured.toFixed(2)}×**.`,
  ]
  console.log(out.join('\n'))
} finally {
  sink.child.kill()
}
