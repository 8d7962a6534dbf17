import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { Analytics, DEFAULT_HOST, importMessages, PlanViolationError, ValidationError, type Plugin } from '../../src'
import { createCollector } from '../../src/collector'
import { KNOWN_OPTIONS, normalizeOptions } from '../../src/config/normalize-options'
import { instrument } from '../../src/otel'
import { definePlan } from '../../src/plan'
import { SPOOL_FS } from '../../src/config/spool-option'
import { Recorder } from '../../src/testing'
import type { FetchLike } from '../../src/core/types'
import { startFaultServer, type FaultServer } from './fault-server'

// Another part of the app pollutes Object.prototype (a merge of untrusted JSON, a vulnerable
// dependency): no option, nested option or message field of eventrail may be taken from it.
// Every pollution is undone in `finally`, and afterEach checks that none is left: jest runs the
// other test files of this worker in the same process.

const PROTO = Object.prototype as unknown as Record<string | symbol, unknown>

/** Runs `run` with `fields` set on Object.prototype (as a polluting assignment does), then removes them. */
async function polluted<T>(fields: Record<string | symbol, unknown>, run: () => T | Promise<T>): Promise<T> {
  const keys = Reflect.ownKeys(fields)
  const set: (string | symbol)[] = []
  try {
    for (const key of keys) {
      if (Object.hasOwn(PROTO, key)) throw new Error(`Object.prototype already has ${String(key)}`)
      PROTO[key] = fields[key]
      set.push(key)
    }
    return await run()
  } finally {
    for (const key of set) delete PROTO[key]
  }
}

const unpolluted = (): void => {
  const left = Reflect.ownKeys(PROTO).filter((key) => Object.prototype.propertyIsEnumerable.call(PROTO, key))
  expect(left).toEqual([])
}

let service: FaultServer
let attacker: FaultServer
const dir = mkdtempSync(join(tmpdir(), 'eventrail-pollution-'))
beforeAll(async () => {
  service = await startFaultServer()
  attacker = await startFaultServer()
})
afterAll(async () => {
  await Promise.all([service.close(), attacker.close()])
  rmSync(dir, { recursive: true, force: true })
})
afterEach(unpolluted)

const sentBy = (key: string): any[] =>
  service.requests
    .filter((r) => r.status === 200 && r.headers.authorization === `Basic ${Buffer.from(`${key}:`).toString('base64')}`)
    .flatMap((r) => r.messages)

const noop = (): void => undefined

describe("client options: only the options object's own fields", () => {
  // A valid value, not the default, for every option: polluted, each would change the client.
  const plan = definePlan({ events: { A: { '~standard': { version: 1, vendor: 't', validate: (value: unknown) => ({ value }) } } } })
  const VALUES: Record<string, unknown> = {
    host: 'http://127.0.0.1:9',
    fallbackHosts: ['http://127.0.0.1:10'],
    flushAt: 7,
    flushInterval: 123,
    enable: false,
    errorHandler: noop,
    fetch: noop,
    timeout: 5,
    maxRetries: 1,
    retryDelay: 1,
    maxRetryDelay: 1,
    maxRetryTime: 1,
    maxQueueSize: 1,
    maxQueueBytes: 1,
    maxInFlight: 1,
    maxRequestsPerSecond: 1,
    compress: true,
    waitUntil: noop,
    plugins: [{ name: 'evil', process: noop }],
    pluginTimeout: 1,
    context: { evil: true },
    plan,
    planMode: 'drop',
    spool: { dir: join(dir, 'evil-spool') },
  }

  it('a value for every option on Object.prototype changes nothing (and the list covers every option)', async () => {
    expect(Object.keys(VALUES).sort()).toEqual([...KNOWN_OPTIONS].sort())
    const clean = normalizeOptions('k', {})
    const resolved = await polluted(VALUES, () => normalizeOptions('k', {}))
    expect(resolved).toEqual(clean)
  })

  it("nested: the spool option's maxBytes and test file system are its own too", async () => {
    const spool = { dir: join(dir, 'spool-own') }
    const clean = normalizeOptions('k', { spool })
    const resolved = await polluted({ maxBytes: 1, [SPOOL_FS]: { evil: true } }, () => normalizeOptions('k', { spool }))
    expect(resolved.spool).toEqual(clean.spool)
  })

  it("Object.prototype.host: the write key and the messages go to the default host, never to the polluter's", async () => {
    const urls: string[] = []
    // The default host, sent on to the test's service: what arrives there is what was sent.
    const forward: FetchLike = (url, init) => {
      urls.push(url)
      return fetch(url.replace(DEFAULT_HOST, service.url), init)
    }
    const analytics = await polluted({ host: attacker.url }, () => {
      const client = new Analytics('key-host', { fetch: forward, flushInterval: 0 })
      client.track({ userId: 'u1', event: 'Host' })
      return client
    })
    await analytics.closeAndFlush()
    expect(urls.length).toBeGreaterThan(0)
    expect(urls.every((url) => url.startsWith(`${DEFAULT_HOST}/`))).toBe(true)
    expect(sentBy('key-host').map((m) => m.event)).toEqual(['Host'])
    expect(attacker.arrivals).toBe(0)
  })

  it('a hole in fallbackHosts is refused, never read from a polluted prototype (the write key would go to its host)', async () => {
    // eslint-disable-next-line no-sparse-arrays -- the hole is the point
    const fallbackHosts = [, 'https://b.example.com'] as string[]
    const error = await polluted({ 0: attacker.url }, () => {
      try {
        return normalizeOptions('k', { fallbackHosts })
      } catch (err) {
        return err
      }
    })
    expect(error).toBeInstanceOf(ValidationError)
    expect(error).toMatchObject({ field: 'fallbackHosts[0]' })
    expect(attacker.arrivals).toBe(0)
  })

  it('Object.prototype.enable = false, fetch, maxQueueSize: the client sends every message with its own transport', async () => {
    let evilCalls = 0
    const evil: FetchLike = () => {
      evilCalls += 1
      return Promise.reject(new Error('evil'))
    }
    const outcomes: (Error | undefined)[] = []
    const analytics = await polluted({ enable: false, fetch: evil, maxQueueSize: 1, flushAt: 1000 }, () => {
      const client = new Analytics('key-enable', { host: service.url, flushInterval: 0 })
      for (let i = 0; i < 3; i++) client.track({ userId: 'u1', event: `Enable ${i}` }, (err) => outcomes.push(err))
      return client
    })
    await analytics.closeAndFlush()
    expect(outcomes).toEqual([undefined, undefined, undefined])
    expect(evilCalls).toBe(0)
    expect(sentBy('key-enable')).toHaveLength(3)
  })

  it("Object.prototype.spool: no spool is made in the polluter's directory", async () => {
    const evilDir = join(dir, 'polluter-spool')
    const analytics = await polluted({ spool: { dir: evilDir } }, () => {
      const client = new Analytics('key-spool', { host: service.url, flushInterval: 0 })
      client.track({ userId: 'u1', event: 'Spool' })
      return client
    })
    await analytics.closeAndFlush()
    expect(existsSync(evilDir)).toBe(false)
    expect(analytics.stats().spool).toBeUndefined()
    expect(sentBy('key-spool')).toHaveLength(1)
  })

  it('Object.prototype.timeout: closeAndFlush() without a timeout waits for the outcome', async () => {
    const slow = await startFaultServer(() => ({ kind: 'delay', ms: 100, status: 200 }))
    try {
      const analytics = new Analytics('key-close', { host: slow.url, flushInterval: 0 })
      let outcome: Error | undefined | 'none' = 'none'
      analytics.track({ userId: 'u1', event: 'Close' }, (err) => (outcome = err))
      const closing = await polluted({ timeout: 0 }, () => ({ done: analytics.closeAndFlush() }))
      await closing.done
      expect(outcome).toBeUndefined()
      expect(slow.accepted.size).toBe(1)
    } finally {
      await slow.close()
    }
  })

  it("plugins: a plugin's types and onError are its own (or its class's), never Object.prototype's", async () => {
    class Stamp {
      readonly name = 'stamp'
      process(message: any): any {
        return { ...message, properties: { ...message.properties, stamped: true } }
      }
    }
    const analytics = await polluted({ types: ['alias'], onError: 'continue' }, () => {
      const client = new Analytics('key-plugin', { host: service.url, flushInterval: 0, plugins: [new Stamp()] })
      return client
    })
    analytics.track({ userId: 'u1', event: 'Plugin' })
    await analytics.closeAndFlush()
    expect(sentBy('key-plugin').map((m) => m.properties)).toEqual([{ stamped: true }])
  })

  it("definePlan: allowUnplanned and schemas are the definition's own", async () => {
    const schema = { '~standard': { version: 1 as const, vendor: 't', validate: (value: unknown) => ({ value }) } }
    const strictPlan = await polluted(
      { allowUnplanned: true, traits: { '~standard': { version: 1, validate: () => ({ issues: [{ message: 'evil' }] }) } } },
      () => definePlan({ events: { Planned: schema } }),
    )
    const analytics = new Analytics('key-plan', { host: service.url, flushInterval: 0, plan: strictPlan, planMode: 'drop' })
    const errors: (Error | undefined)[] = []
    analytics.track({ userId: 'u1', event: 'Unplanned' } as never, (err) => errors.push(err))
    analytics.identify({ userId: 'u1', traits: { a: 1 } }, (err) => errors.push(err))
    await analytics.closeAndFlush()
    expect(errors[0]).toBeInstanceOf(PlanViolationError)
    expect(errors[1]).toBeUndefined()
    expect(sentBy('key-plan').map((m) => m.type)).toEqual(['identify'])
  })
})

describe("messages: fields of Object.prototype are not the message's", () => {
  it('track() and deliver.track(): no userId, messageId, timestamp or integrations of the polluter', async () => {
    const analytics = new Analytics('key-message', { host: service.url, flushInterval: 0 })
    const outcome = await polluted(
      { userId: 'attacker', messageId: 'polluted-id', timestamp: '2001-01-01T00:00:00.000Z', integrations: { All: false } },
      () => {
        analytics.track({ anonymousId: 'a1', event: 'Call' })
        return { delivered: analytics.deliver.track({ anonymousId: 'a1', event: 'Deliver' }) }
      },
    )
    const delivery = await outcome.delivered
    await analytics.closeAndFlush()
    const sent = sentBy('key-message')
    expect(sent.map((m) => m.event)).toEqual(['Call', 'Deliver'])
    for (const m of sent) {
      expect(Object.hasOwn(m, 'userId') || Object.hasOwn(m, 'integrations')).toBe(false)
      expect(m.messageId).not.toBe('polluted-id')
      expect(m.timestamp).not.toBe('2001-01-01T00:00:00.000Z')
    }
    expect(delivery).toMatchObject({ delivered: true, messageId: sent[1].messageId })
  })
})

describe("a plugin's result: fields of Object.prototype are not the result's", () => {
  it("a scrubbing plugin that deletes userId: the polluter's userId is not sent in its place", async () => {
    const scrub: Plugin = {
      name: 'scrub',
      process: (m) => {
        delete (m as { userId?: string }).userId
        return m
      },
    }
    const analytics = new Analytics('key-scrub', { host: service.url, flushInterval: 0, plugins: [scrub] })
    const errors: Record<string, Error | undefined> = {}
    await polluted({ userId: 'attacker' }, () => {
      analytics.track({ userId: 'u1', anonymousId: 'a1', event: 'Scrubbed' }, (err) => (errors.kept = err))
      // Without an anonymousId, nothing is left to name the user: refused, not sent as the polluter's.
      analytics.track({ userId: 'u1', event: 'Scrubbed bare' }, (err) => (errors.bare = err))
    })
    await analytics.closeAndFlush()
    const sent = sentBy('key-scrub')
    expect(sent.map((m) => [m.event, m.userId, m.anonymousId])).toEqual([['Scrubbed', undefined, 'a1']])
    expect(Object.keys(errors).sort()).toEqual(['bare', 'kept'])
    expect(errors.kept).toBeUndefined()
    expect(errors.bare?.name).toBe('ValidationError')
  })
})

describe('import: options, items and lines', () => {
  it("importMessages(): strict and firstPosition are the options' own; a line or an item without a type or an id is refused", async () => {
    const analytics = new Analytics('key-import', { host: service.url, flushInterval: 0 })
    // The import's modules load on its first use; their loader's own code (for-in over exports) is
    // not eventrail's to guard: they are loaded before the pollution.
    await importMessages([], analytics)
    const issues: string[] = []
    const summary = await polluted({ strict: true, firstPosition: 100, type: 'track', userId: 'attacker' }, () =>
      importMessages(
        [
          '{"userId":"u1","event":"No type"}',
          '{"type":"track","event":"No id"}',
          { userId: 'u1', event: 'No type either' },
          '{"type":"track","userId":"u1","event":"Line"}',
          { type: 'track', userId: 'u1', event: 'Object' },
        ],
        analytics,
        { onIssue: (issue) => issues.push(`${issue.position} ${issue.reason}`) },
      ),
    )
    await analytics.closeAndFlush()
    expect(summary).toMatchObject({ read: 5, sent: 2, refused: 3 })
    expect(issues.map((issue) => issue.split(' ')[0])).toEqual(['1', '2', '3'])
    const sent = sentBy('key-import')
    expect(sent.map((m) => m.event)).toEqual(['Line', 'Object'])
    expect(sent.every((m) => m.userId === 'u1')).toBe(true)
  })
})

describe('collector, testing and otel options', () => {
  it("createCollector(): out, writeKeys and a plan's allowUnplanned are its own", async () => {
    const out = join(dir, 'polluter.jsonl')
    const plan = { 'x-eventrail-plan': 1, definitions: { events: { Planned: {} } } }
    const collector = await polluted({ out, writeKeys: ['attacker-only'], allowUnplanned: true }, () => createCollector({ plan }))
    try {
      // The wait starts before the message is sent: a polluted timeout of 1 ms would end it first.
      const waiting = await polluted({ timeout: 1 }, () => ({ records: collector.waitForMessages(1) }))
      waiting.records.catch(noop) // awaited below; never an unhandled rejection meanwhile
      const analytics = new Analytics('key-collector', { host: collector.url, flushInterval: 0 })
      analytics.track({ userId: 'u1', event: 'Unplanned' })
      await analytics.closeAndFlush()
      const records = await waiting.records
      expect(records.map((r) => r.verdict)).toEqual(['accepted'])
      expect(records[0].violations?.map((v) => v.path)).toEqual(['event'])
      expect(existsSync(out)).toBe(false)
    } finally {
      await collector.close()
    }
  })

  it("Recorder: respond is its own; a query's fields are its own", async () => {
    const recorder = await polluted({ respond: 500 }, () => new Recorder())
    const analytics = new Analytics('key-recorder', { fetch: recorder.fetch, maxRetries: 0, flushInterval: 0 })
    analytics.track({ userId: 'u1', event: 'Recorded' })
    await analytics.closeAndFlush()
    expect(recorder.requests.map((r) => r.status)).toEqual([200])
    expect(await polluted({ event: 'Other' }, () => recorder.find({ type: 'track' }).length)).toBe(1)
  })

  it('instrument(): name and perInstance are its own', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
    const provider = new MeterProvider({ readers: [reader] })
    try {
      const analytics = new Analytics('key-otel', { enable: false })
      const meter = provider.getMeter('pollution')
      const handle = await polluted({ name: 'evil', perInstance: true }, () => instrument(analytics, { meter }))
      await reader.forceFlush()
      const names = exporter
        .getMetrics()
        .flatMap((r) =>
          r.scopeMetrics.flatMap((s) => s.metrics.flatMap((m) => m.dataPoints.map((p) => p.attributes['otel.component.name']))),
        )
      expect(names.length).toBeGreaterThan(0)
      expect(new Set(names)).toEqual(new Set(['eventrail']))
      handle.stop()
      await analytics.closeAndFlush()
    } finally {
      await provider.shutdown()
    }
  })
})

describe('an options object whose option comes from its class', () => {
  it('is refused naming the option, not ignored without a word', () => {
    class Config {
      readonly flushAt = 5
      get host(): string {
        return 'http://127.0.0.1:9'
      }
    }
    expect(() => new Analytics('k', new Config())).toThrow(
      'Analytics: "host" is inherited from the options object\'s class: only own fields are read; pass a plain object ({ host: config.host, … })',
    )
    expect(new Analytics('k', Object.assign(Object.create({ unrelated: true }) as object, { enable: false })).stats().queued).toBe(0)
  })
})
