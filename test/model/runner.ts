import type { IncomingHttpHeaders } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { Analytics } from '../../src'
import { sleep, startFaultServer, type Fault, type FaultServer } from '../faults/fault-server'
import { clientOptions, messageFor, type ModelConfig } from './configs'
import { answerFor } from './fault-modes'
import { generateSequence, type Op, type ServerMode } from './generator'
import { avoided, STRICT_ALL } from './known-bugs'
import { Oracle } from './oracle'
import { createRng } from './rng'
import { within } from './settling'

/** What one run did and what it broke. */
export interface RunResult {
  readonly config: string
  readonly seed: number
  readonly ops: number
  readonly messages: number
  readonly violations: string[]
  /** What the run went through (see `Oracle.coverage`), how often the outage breaker opened (every host down), and how often a host failed over. */
  readonly coverage: Record<string, number>
}

/** Longest the runner waits for closeAndFlush() and every outcome at the end of a run. */
const SETTLE_LIMIT_MS = 10_000

/**
 * Runs the sequence of `seed` against a new fault server and client of `config`, closes the
 * client, waits for every outcome (bounded), and returns what the oracle found. Unless `strict`,
 * what shows a known bug of `config` is left out (known-bugs.ts).
 */
export async function runSequence(config: ModelConfig, seed: number, length: number, strict = STRICT_ALL): Promise<RunResult> {
  // The configuration's name goes into the seed: each configuration gets sequences of its own.
  const rng = createRng(seed ^ hashOf(config.name))
  const sequence = generateSequence(config, rng, length, avoided(config.name, strict))
  const state = { mode: 'ok' as ServerMode, fallbackMode: 'ok' as ServerMode }
  const answers = createRng(seed ^ 0x5bd1e995)
  // A run's own write key. While a server of this run is closed (a refused connection), a run going
  // on beside it (the soak runs several) may get that port for a new server: a request of this run
  // that reaches it is reset there, as the closed port would have refused it, instead of being
  // accepted by a server this run never checks (seen in the soak: "delivered, but the server never
  // answered 2xx"). A replay runs alone and never meets it.
  const writeKey = `model-${config.name}-${seed}`
  const ours = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`
  const own =
    (answer: () => Fault) =>
    (_index: number, _path: string, headers: IncomingHttpHeaders): Fault =>
      headers.authorization === ours ? answer() : { kind: 'reset' }
  const server = await startFaultServer(own(() => answerFor(state.mode, answers)))
  const fallback = config.fallback === true ? await startFaultServer(own(() => answerFor(state.fallbackMode, answers))) : undefined
  const dir = config.spool ? mkdtempSync(path.join(tmpdir(), 'eventrail-model-')) : undefined
  const oracle = new Oracle(config)
  const client = new Analytics(writeKey, {
    ...clientOptions(config, server.url, rng, dir, fallback?.url),
    ...(sequence.errorHandler ? { errorHandler: () => undefined } : {}),
  })
  let breakerOpens = 0
  let failovers = 0
  client.on('breaker', (change) => {
    if (change.state !== 'open') return
    if (change.activeHost === undefined) breakerOpens += 1
    else failovers += 1
  })
  const background: Promise<unknown>[] = []
  let closing: Promise<unknown> | undefined
  try {
    for (const [n, op] of sequence.ops.entries()) {
      const work = step(op, n, { seed, client, server, fallback, state, oracle })
      if (op.kind === 'close') closing ??= work
      if (work !== undefined) background.push(work)
      const awaited = op.kind === 'wait' || op.kind === 'server' || ('awaited' in op && op.awaited)
      if (work !== undefined && awaited && (await within(work, SETTLE_LIMIT_MS)) === 'late') {
        oracle.violation(`op ${n} (${op.kind}) did not settle within ${SETTLE_LIMIT_MS} ms`)
      }
    }
    if (closing === undefined) {
      closing = step({ kind: 'close', timeoutMs: rng.chance(0.5) ? 1_000 : undefined, awaited: true }, length, {
        seed,
        client,
        server,
        fallback,
        state,
        oracle,
      })
      background.push(closing as Promise<unknown>)
    }
    if ((await within(closing as Promise<unknown>, SETTLE_LIMIT_MS)) === 'late') {
      oracle.violation(
        `closeAndFlush() did not settle within ${SETTLE_LIMIT_MS} ms (waiting for: ${oracle.pending().slice(0, 5).join(', ')})`,
      )
    }
    if ((await within(Promise.all(background), SETTLE_LIMIT_MS)) === 'late') {
      oracle.violation(`after close, outcomes still pending after ${SETTLE_LIMIT_MS} ms: ${oracle.pending().slice(0, 5).join(', ')}`)
    }
    // Time for a second callback of a message, would there be one.
    await sleep(30)
    // With a fallback host, what either service saw and accepted.
    const requests = [...server.requests, ...(fallback?.requests ?? [])]
    const accepted = new Map(server.accepted)
    for (const [id, times] of fallback?.accepted ?? []) accepted.set(id, (accepted.get(id) ?? 0) + times)
    const violations = oracle.check(requests, accepted, client.stats())
    const coverage = {
      ...oracle.coverage(),
      ...(breakerOpens > 0 ? { 'breaker opened': breakerOpens } : {}),
      ...(failovers > 0 ? { 'failed over': failovers } : {}),
    }
    return { config: config.name, seed, ops: sequence.ops.length, messages: oracle.messages, violations, coverage }
  } finally {
    await client.closeAndFlush({ timeout: 100 }).catch(() => undefined)
    await server.close()
    await fallback?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
}

interface StepContext {
  readonly seed: number
  readonly client: Analytics
  readonly server: FaultServer
  /** The fallback host's server, with `fallback` configurations. */
  readonly fallback: FaultServer | undefined
  readonly state: { mode: ServerMode; fallbackMode: ServerMode }
  readonly oracle: Oracle
}

// Does one op; returns what settles when it is done, when it goes on in the background.
function step(op: Op, n: number, ctx: StepContext): Promise<unknown> | undefined {
  const { client, oracle } = ctx
  switch (op.kind) {
    case 'call': {
      const id = `m${ctx.seed}-${n}-${op.fate}`
      const message = messageFor(op.method, op.fate, id, n)
      try {
        if (op.via === 'deliver') return oracle.deliver(id, op.fate, (client.deliver[op.method] as (m: unknown) => Promise<never>)(message))
        ;(client[op.method] as (m: unknown, cb: unknown) => void)(message, oracle.callback(id, op.fate))
      } catch (err) {
        oracle.violation(`${id}: ${op.method}(message, ${op.via}) threw ${String(err)}; with a callback or deliver.* a call never throws`)
      }
      return undefined
    }
    case 'throwingCall':
      try {
        client.track({ userId: 'u' } as never)
        oracle.violation(`op ${n}: an invalid track() with neither callback nor errorHandler did not throw`)
      } catch {
        oracle.thrown()
      }
      return undefined
    case 'flush': {
      const done = oracle.flushStarted(`flush #${n}${op.callback ? ' (callback)' : ''}`)
      if (op.callback) {
        return client
          .flush(() => done.settled(undefined))
          .then(done.result, (err: unknown) => oracle.violation(`flush(callback) rejected: ${String(err)}`))
      }
      return client.flush().then(done.settled, () => done.settled(undefined))
    }
    case 'close': {
      const done = oracle.flushStarted('closeAndFlush')
      oracle.closing()
      const closed = op.timeoutMs === undefined ? client.closeAndFlush() : client.closeAndFlush({ timeout: op.timeoutMs })
      return closed.then(done.settled, () => done.settled(undefined))
    }
    case 'server':
      return switchServer(ctx, op.mode)
    case 'wait':
      return sleep(op.ms)
  }
}

async function switchServer(ctx: StepContext, mode: ServerMode): Promise<void> {
  const was = ctx.state.mode
  ctx.state.mode = mode
  await follow(ctx.server, was, mode)
  // The fallback host takes the mode the primary leaves.
  if (ctx.fallback === undefined) return
  const fallbackWas = ctx.state.fallbackMode
  ctx.state.fallbackMode = was
  await follow(ctx.fallback, fallbackWas, was)
}

// A server refuses connections (closed) in `downRefused`, and listens again after it.
async function follow(server: FaultServer, was: ServerMode, mode: ServerMode): Promise<void> {
  if (was === 'downRefused' && mode !== 'downRefused') await server.reopen()
  if (was !== 'downRefused' && mode === 'downRefused') await server.close()
}

function hashOf(text: string): number {
  let hash = 2166136261
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619)
  return hash >>> 0
}
