#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages (swc, rollup,
// esbuild binaries for other systems) that this machine's registry mirror does not serve.
// Without their entries `npm ci` refuses the lock file as "out of sync"; with them, npm skips
// them by their os/cpu fields on every platform they do not match, exactly as it does with a
// lock made where the registry serves everything. Run after any `npm install`.
import { readFileSync, writeFileSync } from 'node:fs'

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony']
const CPU = ['arm64', 'x64', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'arm']
const file = process.argv[2] ?? 'package-lock.json'
const lock = JSON.parse(readFileSync(file, 'utf8'))
const packages = lock.packages
const part = (name, words) => words.find((w) => new RegExp(`(^|-)${w}(-|$|eabi|gnu|msvc)`).test(name))

let added = 0
for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`
    if (packages[key] || packages[`${path}/${key}`]) continue
    const name = dep.split('/').pop()
    const os = part(name, OS)
    if (!os || !/^\d+\.\d+\.\d+/.test(version)) continue
    const cpu = part(name, CPU)
    packages[key] = { version, ...(cpu ? { cpu: [cpu] } : {}), ...(meta.dev ? { dev: true } : {}), optional: true, os: [os] }
    added += 1
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)))
lock.packages = sorted
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n')
console.log(`complete-lock: added ${added} platform entries to ${file}`)
