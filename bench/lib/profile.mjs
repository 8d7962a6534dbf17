// Summarizes a V8 .cpuprofile (node --cpu-prof): self and total time per function, with
// eventrail's frames mapped back to src/ through dist/index.js.map.
// Builtins such as JSON.stringify have no frame of their own: their time is the caller's self time.

import { readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { fileURLToPath } from 'node:url'
import { basename } from 'node:path'

const root = new URL('../../', import.meta.url).href
// eventrail's built files: the runner's snapshot of dist/ (bench/lib/snapshot.mjs), or dist/ itself.
const SNAPSHOT_DIST = root + 'bench/.snapshot/node_modules/eventrail/dist/'
const REPO_DIST = root + 'dist/'

const maps = new Map()

function sourceMapFor(url) {
  if (!maps.has(url)) {
    let map
    try {
      const file = fileURLToPath(url)
      map = new SourceMap(JSON.parse(readFileSync(file + '.map', 'utf8')))
    } catch {
      map = undefined
    }
    maps.set(url, map)
  }
  return maps.get(url)
}

/** Where a frame belongs: eventrail's src file, a package, node itself, the bench, or V8. */
function locate(frame) {
  const { url, functionName, lineNumber, columnNumber } = frame
  const name = functionName || '(anonymous)'
  if (!url) return { group: 'v8', key: name }
  if (url.startsWith('node:')) return { group: 'node', key: `${url.replace(/^node:(internal\/)?/, '')}:${name}` }
  if (url.startsWith(SNAPSHOT_DIST) || url.startsWith(REPO_DIST)) {
    const entry = sourceMapFor(url)?.findEntry(lineNumber, columnNumber)
    const source = entry?.originalSource ? entry.originalSource.replace(/^.*?src\//, 'src/') : basename(url)
    return { group: 'eventrail', key: `${source}:${name}` }
  }
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
  if (pkg) return { group: pkg[1], key: `${pkg[1]}:${name}` }
  if (url.includes('/bench/')) return { group: 'bench', key: `${url.replace(/^.*\/bench\//, 'bench/')}:${name}` }
  return { group: 'other', key: `${basename(url)}:${name}` }
}

/**
 * @returns {{ totalMs: number, groups: Record<string, number>, functions: Array<{ key, group, selfMs, selfPct, totalMs, totalPct }> }}
 * Percentages are of the non-idle time.
 */
export function summarizeProfile(path) {
  const profile = JSON.parse(readFileSync(path, 'utf8'))
  const byId = new Map()
  for (const node of profile.nodes) byId.set(node.id, node)
  const parent = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const where = new Map()
  const groupOf = new Map()
  for (const node of profile.nodes) {
    const w = locate(node.callFrame)
    where.set(node.id, w)
    groupOf.set(w.key, w.group)
  }

  const self = new Map()
  const total = new Map()
  const groups = {}
  let busyUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]
    // timeDeltas[i] is the time before sample i; the next delta is this sample's duration.
    const us = profile.timeDeltas[i + 1] ?? 0
    const leaf = where.get(id)
    if (leaf.key === '(idle)') continue
    busyUs += us
    self.set(leaf.key, (self.get(leaf.key) ?? 0) + us)
    groups[leaf.group] = (groups[leaf.group] ?? 0) + us
    const counted = new Set()
    for (let node = id; node !== undefined; node = parent.get(node)) {
      const { key } = where.get(node)
      if (counted.has(key)) continue
      counted.add(key)
      total.set(key, (total.get(key) ?? 0) + us)
    }
  }
  const pct = (us) => (100 * us) / busyUs
  const functions = [...self.entries()]
    .map(([key, us]) => ({
      key,
      group: groupOf.get(key),
      selfMs: us / 1000,
      selfPct: pct(us),
      totalMs: (total.get(key) ?? 0) / 1000,
      totalPct: pct(total.get(key) ?? 0),
    }))
    .sort((a, b) => b.selfMs - a.selfMs)
  const groupPct = {}
  for (const [group, us] of Object.entries(groups)) groupPct[group] = pct(us)
  return {
    totalMs: busyUs / 1000,
    groups: groupPct,
    functions,
    inclusive: [...total.entries()].map(([key, us]) => ({ key, totalPct: pct(us) })),
  }
}
