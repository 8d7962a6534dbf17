// npm run bench:outage [-- --quick] [-- --client=NAME] [-- --scenario=NAME]
//
// What each client does when the service is down or flaky, with its own defaults (only host,
// and an error handler where it would otherwise throw): eventrail (the built package),
// analytics-node@6 and @segment/analytics-node@3, in the same run. Every cell runs in a fresh child
// process with its own node:http server on 127.0.0.1 (bench/outage-scenarios.mjs). Figures:
//
// - down-500, refused, hang: 100 track calls with a callback each, then flush(); the time until
//   every callback has run and flush() has settled (at most LIMIT_MS), requests the service saw,
//   errorHandler calls, unhandled rejections.
// - flaky-25: a quarter of requests answered 500 at random (seeded); N messages at R a second;
//   messages lost (never accepted by the service, whatever their callback said), requests, time.
// - recovery: the service answers 500 for 30 s, then 200; 20 messages a second throughout; the
//   time from the service's return to the first message it accepts, and the requests per second
//   it saw while down (the probes).
// - kill-20, kill-2000: kill -9 at a random moment while tracking at 20 or 2,000 messages a
//   second, eventrail with the spool (then a second process on the directory) and every client
//   without one; lost and duplicated messageIds (bench/outage-kill.mjs).
// - fallback (eventrail only): a primary that answers 500, then 200, and a fallback host that
//   answers 200: time to the first delivery through the fallback, time until the traffic returns
//   to the primary, lost and duplicated messageIds (bench/outage-fallback.mjs).
//
// Results: bench/outage-results.json and the table between the outage markers of bench/RESULTS.md.

import { fork } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runScenario } from './outage-scenarios.mjs'
import { KILL_CLIENTS, runKill } from './outage-kill.mjs'
import { renderKill } from './lib/kill-report.mjs'
import { renderFallback, runFallback } from './outage-fallback.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const args = process.argv.slice(2)
const quick = args.includes('--quick')
const pick = (name) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]

const CLIENTS = ['eventrail', 'analytics-node@6', '@segment/analytics-node@3'].filter(
  (c) => pick('client') === undefined || c === pick('client'),
)
const SCENARIOS = ['down-500', 'refused', 'hang', 'flaky-25', 'flaky-25-100k', 'recovery', 'kill-20', 'kill-2000', 'fallback'].filter(
  (s) => pick('scenario') === undefined || s === pick('scenario'),
)
// The kill -9 scenarios run eventrail with the spool too (a client of its own in their table).
// The fallback scenario runs eventrail only: the other clients have no fallback host.
const clientsOf = (scenario) =>
  scenario.startsWith('kill-')
    ? KILL_CLIENTS.filter((c) => pick('client') === undefined || c === pick('client'))
    : scenario === 'fallback'
      ? CLIENTS.filter((c) => c === 'eventrail')
      : CLIENTS

const sec = (ms) => (ms === undefined ? '–' : `${(ms / 1000).toFixed(1)} s`)

if (process.env.OUTAGE_CHILD) {
  const { client, scenario, quick: isQuick } = JSON.parse(process.env.OUTAGE_CHILD)
  const failed = (err) => ({ error: String(err?.message ?? err).split('\n')[0] })
  const result = scenario.startsWith('kill-')
    ? await runKill(client, scenario, { root, quick: isQuick }).catch(failed)
    : scenario === 'fallback'
      ? await runFallback({ root, quick: isQuick }).catch(failed)
      : await runScenario(client, scenario, { root, quick: isQuick })
  process.send(result, () => process.exit(0))
} else {
  const results = {}
  for (const scenario of SCENARIOS) {
    results[scenario] = {}
    for (const client of clientsOf(scenario)) {
      process.stderr.write(`${scenario} · ${client} … `)
      results[scenario][client] =
        scenario === 'flaky-25-100k' && client !== 'eventrail' ? { skipped: true } : await runChild(client, scenario)
      process.stderr.write(`${JSON.stringify(results[scenario][client], (k, v) => (k === 'runs' ? undefined : v))}\n`)
    }
  }
  const fallback = results.fallback?.eventrail
  const markdown = [render(results), renderKill(results, SCENARIOS), fallback === undefined ? '' : renderFallback(fallback)]
    .filter((part) => part !== '')
    .join('\n\n')
  console.log(markdown)
  if (!quick && pick('client') === undefined && pick('scenario') === undefined) {
    writeFileSync(
      join(here, 'outage-results.json'),
      JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2) + '\n',
    )
    const file = join(here, 'RESULTS.md')
    const text = readFileSync(file, 'utf8')
    const start = '<!-- outage:start -->'
    const end = '<!-- outage:end -->'
    const block = `${start}\n${markdown}\n${end}`
    writeFileSync(
      file,
      text.includes(start) ? text.replace(new RegExp(`${start}[\\s\\S]*${end}`), block) : `${text.trimEnd()}\n\n${block}\n`,
    )
  }
}

function runChild(client, scenario) {
  return new Promise((resolve) => {
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, OUTAGE_CHILD: JSON.stringify({ client, scenario, quick }) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    let stderr = ''
    child.stderr.on('data', (c) => (stderr += c))
    let result
    child.on('message', (m) => (result = m))
    child.on('exit', (code) => resolve(result ?? { error: `exit ${code}: ${stderr.split('\n').slice(-3).join(' ')}` }))
  })
}

function render(results) {
  const lines = []
  const down = SCENARIOS.filter((s) => ['down-500', 'refused', 'hang'].includes(s))
  if (down.length > 0) {
    lines.push('**Hard down**: 100 messages, then `flush()`; time until every callback has run and `flush()` has settled.', '')
    lines.push(
      '| service | client | settled | callbacks run | requests seen | errorHandler calls | unhandled rejections |',
      '|---|---|---:|---:|---:|---:|---:|',
    )
    for (const s of down) {
      for (const c of CLIENTS) {
        const r = results[s][c]
        if (r.error) lines.push(`| ${s} | ${c} | ${r.error} | | | | |`)
        else
          lines.push(
            `| ${s} | ${c} | ${r.settled ? sec(r.ms) : `not settled after ${sec(r.ms)}`} | ${r.callbacks} of 100 | ${r.requests ?? '–'} | ${r.handlerCalls} | ${r.unhandled} |`,
          )
      }
    }
    lines.push('')
  }
  const flakies = SCENARIOS.filter((s) => s.startsWith('flaky-25'))
  if (flakies.length > 0) {
    lines.push('**A quarter of requests fail at random** (500, seeded): messages lost = sent − accepted by the service.', '')
    lines.push('| client | messages | rate | lost | lost per 10,000 | requests | time |', '|---|---:|---:|---:|---:|---:|---:|')
    for (const [s, c] of flakies.flatMap((s) => CLIENTS.map((c) => [s, c]))) {
      const r = results[s][c]
      if (r.skipped) continue
      if (r.error) lines.push(`| ${c} | ${r.error} | | | | | |`)
      else
        lines.push(
          `| ${c} | ${r.messages.toLocaleString('en-US')} | ${r.rate.toLocaleString('en-US')}/s | ${r.lost} | ${((r.lost / r.messages) * 10_000).toFixed(2)} | ${r.requests.toLocaleString('en-US')} | ${sec(r.ms)} |`,
        )
    }
    lines.push('')
  }
  if (SCENARIOS.includes('recovery')) {
    lines.push('**Recovery**: 500 for 30 s, then 200; 20 messages a second throughout.', '')
    lines.push(
      '| client | first delivery after the service is back | requests per second while down | most requests in one second while down | messages sent while down that failed | sent after the return, delivered |',
      '|---|---:|---:|---:|---:|---:|',
    )
    for (const c of CLIENTS) {
      const r = results.recovery[c]
      if (r.error) lines.push(`| ${c} | ${r.error} | | | | |`)
      else
        lines.push(
          `| ${c} | ${sec(r.resumeMs)} | ${r.downRate.toFixed(1)} | ${r.downPeak} | ${r.failedWhileDown} of ${r.sentWhileDown} | ${r.deliveredAfter} of ${r.sentAfter} |`,
        )
    }
  }
  return lines.join('\n')
}
