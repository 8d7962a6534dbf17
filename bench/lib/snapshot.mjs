// The bench measures one build of eventrail: at its start the runner copies the built package
// (package.json, dist/, and the README, LICENSE and CHANGELOG npm would publish with it) to
// bench/.snapshot/node_modules/eventrail. Its dependencies still resolve from the repository's
// node_modules. A rebuild while the bench runs (tsup empties dist/ first) cannot then break or
// change the runs.

import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Where the snapshot of the package lives. */
export const SNAPSHOT_DIR = join(root, 'bench', '.snapshot', 'node_modules', 'eventrail')

const PUBLISHED = /^(readme|license|licence|changelog)(\.|$)/i

/** Copies the built package; waits (up to 30 s) for a build in progress to finish. */
export async function takeSnapshot() {
  const dist = join(root, 'dist')
  for (let tries = 0; !(existsSync(join(dist, 'index.js')) && existsSync(join(dist, 'index.cjs'))); tries++) {
    if (tries >= 60) throw new Error('dist/index.js and dist/index.cjs are missing: run `npm run build` first')
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  rmSync(SNAPSHOT_DIR, { recursive: true, force: true })
  mkdirSync(SNAPSHOT_DIR, { recursive: true })
  cpSync(join(root, 'package.json'), join(SNAPSHOT_DIR, 'package.json'))
  cpSync(dist, join(SNAPSHOT_DIR, 'dist'), { recursive: true })
  for (const name of readdirSync(root)) if (PUBLISHED.test(name)) cpSync(join(root, name), join(SNAPSHOT_DIR, name))
  return SNAPSHOT_DIR
}

/** The snapshot when there is one, else the repository itself (a worker run by hand). */
export function eventrailDir() {
  return existsSync(join(SNAPSHOT_DIR, 'dist', 'index.js')) ? SNAPSHOT_DIR : root
}
