// Markdown tables of a bench run: every figure with its ratio to the baseline of the same run.

import { renderSpoolSection, spoolTargetRows } from './report-spool.mjs'

const BASE = 'baseline'

function num(value, digits = 0) {
  if (value === undefined || value === null || Number.isNaN(value)) return '–'
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

function ratio(value, base) {
  if (typeof value !== 'number' || typeof base !== 'number' || base === 0) return '–'
  const r = value / base
  return `${r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(2) : r.toFixed(2)}×`
}

function table(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`
  return [line(headers), line(headers.map((h, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n')
}

/** Rows of a scenario, one per client, errors shown in place of figures. */
function rowsOf(scenario, clients, columns) {
  const base = scenario[BASE] ?? {}
  return clients.map((client) => {
    const r = scenario[client]
    if (!r || r.error)
      return [
        client,
        `error: ${String(r?.error ?? 'not run')
          .split('\n')[0]
          .slice(0, 80)}`,
        ...columns.slice(1).map(() => ''),
      ]
    const note = r.errors ? ` (${r.errors} of ${r.runs} runs failed)` : ''
    return [client + note, ...columns.map((col) => col(r, base))]
  })
}

const v =
  (key, digits = 0, scale = 1) =>
  (r) =>
    num(r[key] === undefined ? undefined : r[key] * scale, digits)
const x = (key) => (r, base) => ratio(r[key], base[key])

export function renderTables(results) {
  const { meta, params: P, scenarios: S, clients, maxFlushAt } = results
  const out = []
  out.push(
    `Run of ${meta.date.slice(0, 16).replace('T', ' ')} UTC · Node ${meta.node} · ${meta.platform} · ${meta.cpu} · ${meta.memoryGb} GB` +
      ` · ${meta.quick ? 'quick run, 1 run per figure' : `median of ${P.runs} runs, each in a fresh process`}` +
      (meta.durationS ? ` · took ${Math.round(meta.durationS)} s` : '') +
      (meta.revision ? ` · eventrail at ${meta.revision}` : ''),
  )
  out.push('')
  out.push(`Ratios (×) are to the baseline of the same run.`)

  if (S.caller) {
    out.push('', `### 1. Caller cost: ${num(P.calls)} track() calls of a ~500-byte event, yielding every 100 calls`, '')
    out.push(
      table(
        [
          'client',
          'calls',
          'ns per track()',
          '×',
          'CPU per event until acknowledged (µs)',
          '×',
          'CPU total (ms)',
          'wall (ms)',
          'requests',
          'lost',
        ],
        rowsOf(S.caller, clients, [
          v('sent'),
          v('nsPerCall'),
          x('nsPerCall'),
          v('cpuUsPerEvent', 2),
          x('cpuUsPerEvent'),
          v('cpuMs'),
          v('wallMs'),
          v('requests'),
          v('lost'),
        ]),
      ),
    )
  }
  const throughputTable = (scenario) =>
    table(
      [
        'client',
        'events',
        'events/s',
        '×',
        'CPU per event (µs)',
        '×',
        'requests',
        'events/request',
        'peak sockets',
        'sockets opened',
        'largest request (KB)',
        'requests refused',
        'lost',
        'duplicated',
      ],
      rowsOf(scenario, clients, [
        v('sent'),
        v('eventsPerSec'),
        x('eventsPerSec'),
        v('cpuUsPerEvent', 2),
        x('cpuUsPerEvent'),
        v('requests'),
        v('eventsPerRequest', 1),
        v('peakSockets'),
        v('connections'),
        v('largestRequestKb', 1),
        v('refusedRequests'),
        v('lost'),
        v('duplicates'),
      ]),
    )
  if (S.throughputDefault) {
    out.push('', `### 2a. Throughput, default options: the runs of scenario 1, from the first call to the last acknowledgement`, '')
    out.push(throughputTable(S.throughputDefault))
  }
  if (S.throughputMax) {
    out.push('', `### 2b. Throughput, maximum batching: flushAt ${maxFlushAt} for every client, ${num(P.events)} events`, '')
    out.push(throughputTable(S.throughputMax))
  }
  if (S.throughputFill) {
    out.push(
      '',
      `### 2c. Throughput, batches that fill by size: flushAt 100,000, ${num(P.events)} events from a producer that yields every 1,000 calls; the baseline sends 480 KB batches over 8 sockets`,
      '',
    )
    out.push(throughputTable(S.throughputFill))
  }
  if (S.memory) {
    out.push('', `### 3. Memory: ${num(P.memoryEvents)} events queued while the sink holds every request, then the sink resumes`, '')
    out.push(
      table(
        [
          'client',
          'events',
          'bytes per queued event',
          '×',
          'peak RSS (MB)',
          '×',
          'requests held by the sink',
          'lost after resume',
          'duplicated',
          'drain after resume (ms)',
        ],
        rowsOf(S.memory, clients, [
          v('sent'),
          v('bytesPerEvent'),
          x('bytesPerEvent'),
          v('peakRssMb'),
          x('peakRssMb'),
          v('requestsHeld'),
          v('lost'),
          v('duplicates'),
          v('drainMs'),
        ]),
      ),
    )
  }
  if (S.coldStart) {
    out.push('', `### 4. Cold start and footprint: median of ${P.imports} fresh processes; installed runtime closure`, '')
    out.push(
      table(
        [
          'client',
          'import() (ms)',
          '×',
          'require() (ms)',
          '×',
          'then first event acknowledged (ms)',
          '×',
          'installed (KB)',
          '×',
          'packages',
        ],
        rowsOf(S.coldStart, clients, [
          v('importMs', 1),
          x('importMs'),
          v('requireMs', 1),
          x('requireMs'),
          v('firstEventMs', 1),
          x('firstEventMs'),
          v('installedKb'),
          x('installedKb'),
          v('packages'),
        ]),
      ),
    )
    const ref = S.coldStart.reference
    if (ref) {
      out.push(
        '',
        `### 4b. import() against \`${ref.name}\`: loaded the same way, in-process, in a fresh process, taking turns with the clients`,
        '',
      )
      const refRow = (label, r) => [
        label,
        num(r.importMs, 1),
        ratio(r.importMs, ref.importMs),
        num(r.requireMs, 1),
        ratio(r.requireMs, ref.requireMs),
      ]
      const rows = [refRow(`\`${ref.name}\` (reference)`, ref)]
      for (const client of clients) if (S.coldStart[client] && !S.coldStart[client].error) rows.push(refRow(client, S.coldStart[client]))
      out.push(table(['loaded', 'import() (ms)', `× import('${ref.name}')`, 'require() (ms)', `× require('${ref.name}')`], rows))
    }
  }
  if (S.big) {
    out.push('', '### 5. Big payloads: 300 valid events of 28–31 KB (half multi-byte text) and 20 of ~40 KB, default options', '')
    out.push(
      table(
        [
          'client',
          'requests',
          'largest request (KB)',
          'requests over 500 KB',
          'oversize events sent',
          'valid events lost (of 300)',
          "refused or failed (client's own count)",
        ],
        rowsOf(S.big, clients, [
          v('requests'),
          v('largestRequestKb', 1),
          v('refusedOversize'),
          v('oversizeEventsSent'),
          (r) => num(r.valid - (r.byEvent?.['Big Payload'] ?? 0)),
          v('clientFailed'),
        ]),
      ),
    )
  }
  if (S.tenants) {
    const later = P.idleWaitMs > 0
    out.push('', `### 6. Many tenants: ${num(P.tenants)} instances, one write key each, one event each, then idle`, '')
    out.push(
      table(
        [
          'client',
          'memory per instance (KB)',
          '×',
          ...(later ? [`after ${P.idleWaitMs / 1000} s idle (KB)`, '×'] : []),
          "timers while idle (ref'd)",
          'sockets while idle',
          ...(later ? [`after ${P.idleWaitMs / 1000} s more: timers / sockets`] : []),
          'instances',
          'create + track (ms)',
          'flush() all (ms)',
          '×',
          'create, track, flush: total (ms)',
          '×',
          'lost',
        ],
        rowsOf(S.tenants, clients, [
          v('bytesPerInstance', 1, 1 / 1024),
          x('bytesPerInstance'),
          ...(later ? [v('bytesPerIdleInstance', 1, 1 / 1024), x('bytesPerIdleInstance')] : []),
          (r) => `${num(r.timersIdle)} (${num(r.refTimersIdle)})`,
          v('socketsIdle'),
          ...(later ? [(r) => `${num(r.timersLater)} / ${num(r.socketsLater)}`] : []),
          v('instances'),
          v('createAndTrackMs'),
          v('flushAllMs'),
          x('flushAllMs'),
          v('totalMs'),
          x('totalMs'),
          v('lost'),
        ]),
      ),
    )
  }
  out.push(...renderSpoolSection(S.spool, P))
  const targets = [...targetRows(results), ...spoolTargetRows(S.spool)]
  if (targets.length > 0) {
    out.push('', '### Targets (eventrail)', '')
    out.push(table(['target', 'measured', 'met'], targets))
  }
  return out.join('\n')
}

function targetRows({ scenarios: S, params: P, meta }) {
  const e = (s) => (s && s.eventrail && !s.eventrail.error ? s.eventrail : undefined)
  const b = (s) => s?.[BASE]
  const rows = []
  const check = (label, value, ok) => rows.push([label, value, value === '–' ? '–' : ok ? 'yes' : '**no**'])
  const r = (s, key) => (e(s) && b(s) ? e(s)[key] / b(s)[key] : undefined)
  const fr = (n) => (n === undefined || Number.isNaN(n) ? '–' : `${n.toFixed(2)}×`)
  if (S.caller) {
    check('client CPU, scenario 1 ≤ 1.3× baseline', fr(r(S.caller, 'cpuUsPerEvent')), r(S.caller, 'cpuUsPerEvent') <= 1.3)
    check('ns per track() ≤ 1.5× baseline', fr(r(S.caller, 'nsPerCall')), r(S.caller, 'nsPerCall') <= 1.5)
  }
  if (S.throughputDefault)
    check(
      'throughput, default options ≥ 0.8× baseline',
      fr(r(S.throughputDefault, 'eventsPerSec')),
      r(S.throughputDefault, 'eventsPerSec') >= 0.8,
    )
  if (S.throughputFill) {
    check(
      'throughput, batches that fill by size ≥ 1.0× baseline',
      fr(r(S.throughputFill, 'eventsPerSec')),
      r(S.throughputFill, 'eventsPerSec') >= 1.0,
    )
    check(
      'client CPU, batches that fill by size ≤ 1.0× baseline',
      fr(r(S.throughputFill, 'cpuUsPerEvent')),
      r(S.throughputFill, 'cpuUsPerEvent') <= 1.0,
    )
  }
  if (S.throughputMax) {
    check('throughput, maximum batching ≥ 1.0× baseline', fr(r(S.throughputMax, 'eventsPerSec')), r(S.throughputMax, 'eventsPerSec') >= 1.0)
    const over = e(S.throughputMax)?.refusedOversize
    check('requests over 500 KB, maximum batching = 0', over === undefined ? '–' : String(over), over === 0)
  }
  if (S.memory) check('bytes per queued event ≤ 1.5× baseline', fr(r(S.memory, 'bytesPerEvent')), r(S.memory, 'bytesPerEvent') <= 1.5)
  if (S.coldStart) {
    // Against import('node:http') in-process, not the baseline's import(): that one is a CommonJS
    // file imported from ESM and includes the CommonJS loader's start-up (issue 31).
    const ref = S.coldStart.reference
    const toRef = (key) => (e(S.coldStart) && ref ? e(S.coldStart)[key] / ref[key] : undefined)
    // The target is Node 22's and 24's (issue 31); on another version the ratio is shown, as on Node
    // 20 (end of life), whose import('node:http') does not load undici.
    const major = Number(/^v?(\d+)/.exec(meta?.node ?? '')?.[1])
    const label = `import() ≤ 1.5× import('${ref?.name ?? 'node:http'}') in-process`
    if (major === 22 || major === 24) check(`${label}, Node ${major}`, fr(toRef('importMs')), toRef('importMs') <= 1.5)
    else
      rows.push([
        `import() × import('${ref?.name ?? 'node:http'}') in-process on Node ${major} (shown; the target is Node 22's and 24's)`,
        fr(toRef('importMs')),
        '–',
      ])
    rows.push([`require() of the CommonJS build, × require('${ref?.name ?? 'node:http'}') (shown, no target)`, fr(toRef('requireMs')), '–'])
    const cold = (x) => (x?.importMs ?? NaN) + (x?.firstEventMs ?? NaN)
    const coldRatio = cold(e(S.coldStart)) / cold(S.coldStart.baseline)
    check('cold start to first event acknowledged ≤ 2× baseline', fr(coldRatio), coldRatio <= 2)
    const kb = e(S.coldStart)?.installedKb
    check('installed size ≤ 600 KB (issue 31)', kb === undefined ? '–' : `${Math.round(kb)} KB`, kb <= 600)
  }
  if (S.big && e(S.big)) {
    const big = e(S.big)
    check('scenario 5: oversize events sent = 0', String(big.oversizeEventsSent), big.oversizeEventsSent === 0)
    const lost = big.valid - (big.byEvent?.['Big Payload'] ?? 0)
    check('scenario 5: valid events lost = 0', String(lost), lost === 0)
  }
  if (S.tenants && e(S.tenants)) {
    const t = e(S.tenants)
    const later = P.idleWaitMs > 0
    const timers = later ? t.timersLater : t.timersIdle
    const sockets = later ? t.socketsLater : t.socketsIdle
    check(`scenario 6: timers held by ${num(P.tenants)} idle instances = 0`, String(timers), timers === 0)
    if (later) {
      const kb = t.bytesPerIdleInstance / 1024
      check(`scenario 6: heap per used, idle instance ≤ 4 KB`, Number.isFinite(kb) ? `${kb.toFixed(1)} KB` : '–', kb <= 4)
    }
    check(
      `scenario 6: sockets held by idle instances${later ? ` (after ${P.idleWaitMs / 1000} s)` : ''} = 0`,
      String(sockets),
      sockets === 0,
    )
  }
  return rows
}

/** The profile summaries: top self-time functions and where eventrail's time goes. */
export function renderProfile(profiles) {
  const out = ['## CPU profiles (node --cpu-prof, 200 µs sampling)', '']
  for (const p of profiles) {
    const { summary: s } = p
    out.push(`### ${p.label} · ${p.client} (${Math.round(s.totalMs)} ms busy) · ${p.file}`, '')
    const groups = Object.entries(s.groups)
      .sort((a, b) => b[1] - a[1])
      .map(([g, pct]) => `${g} ${pct.toFixed(1)} %`)
      .join(', ')
    out.push(`Self time by origin: ${groups}`, '')
    out.push(
      table(
        ['function (self time)', 'self %', 'total %'],
        s.functions.slice(0, 20).map((f) => [f.key, f.selfPct.toFixed(1), f.totalPct.toFixed(1)]),
      ),
    )
    if (p.client === 'eventrail') {
      const own = s.functions.filter((f) => f.group === 'eventrail').slice(0, 12)
      out.push('', 'eventrail src, by self time:', '')
      out.push(
        table(
          ['src function', 'self %', 'total %'],
          own.map((f) => [f.key, f.selfPct.toFixed(1), f.totalPct.toFixed(1)]),
        ),
      )
    }
    out.push('')
  }
  return out.join('\n')
}
