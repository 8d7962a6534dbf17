// Reads a spool directory as the bench sees it after a kill -9 (the format of src/durability/spool/frame.ts:
// parts `part-*/`, taken-over parts `from-part-*/` inside them, segments `NNNNNN.log` that start
// with `ERSPOOL1` then hold records `u32 length | u32 crc32 | kind byte + wire JSON`, and
// `NNNNNN.ack` files of u32 ordinals of the records that have an outcome). The bench does not
// check CRCs: it reads what a replay would find, to tell which messageIds were still waiting.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const MAGIC = 'ERSPOOL1'

/** Every file under `dir` (recursively): how many, their bytes, and how many are segments (.log). */
export function diskUse(dir) {
  let files = 0
  let segments = 0
  let bytes = 0
  let parts = 0
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name)
      if (entry.isDirectory()) {
        if (entry.name.startsWith('part-')) parts += 1
        walk(full)
      } else {
        files += 1
        if (entry.name.endsWith('.log')) segments += 1
        bytes += statSync(full).size
      }
    }
  }
  if (existsSync(dir)) walk(dir)
  return { files, bytes, parts, segments }
}

/**
 * The records in `dir`: `waiting` the messageIds without an outcome (what a new process will
 * send), `acked` how many records had one, `torn` segments whose tail was cut off.
 */
export function readSpool(dir) {
  const waiting = []
  let acked = 0
  let records = 0
  let torn = 0
  const walk = (path) => {
    if (!existsSync(path)) return
    for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(path, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.log')) {
        const segment = readSegment(full)
        records += segment.records
        acked += segment.acked
        torn += segment.torn ? 1 : 0
        for (const id of segment.waiting) waiting.push(id)
      }
    }
  }
  walk(dir)
  return { records, acked, waiting, torn }
}

function readSegment(path) {
  const data = readFileSync(path)
  const ackPath = path.replace(/\.log$/, '.ack')
  const done = new Set()
  if (existsSync(ackPath)) {
    const acks = readFileSync(ackPath)
    for (let at = 0; at + 4 <= acks.length; at += 4) done.add(acks.readUInt32LE(at))
  }
  const out = { records: 0, acked: 0, waiting: [], torn: false }
  if (data.toString('latin1', 0, MAGIC.length) !== MAGIC) return out
  let at = MAGIC.length
  let ordinal = 0
  while (at < data.length) {
    if (data.length - at < 8) return { ...out, torn: true }
    const length = data.readUInt32LE(at)
    if (length < 1 || at + 8 + length > data.length) return { ...out, torn: true }
    out.records += 1
    if (done.has(ordinal)) out.acked += 1
    else out.waiting.push(/"messageId":"([^"]*)"/.exec(data.toString('utf8', at + 9, at + 8 + length))?.[1])
    ordinal += 1
    at += 8 + length
  }
  return out
}
