import * as zlib from 'node:zlib'
import { gunzipSync, gzipSync } from 'node:zlib'
import { canGzip, gunzipBytes, gzipText } from '../../src/platform/gzip'
import { base64Utf8, countUtf8Bytes, nodeBuiltin, onProcessEvent, runtimeDescription, setTimerRef, utf8ByteLength } from '../../src/platform/runtime'

// Node has every API the library uses; each test removes one, as Workers or the Edge Runtime
// lack it, and puts it back.
function without<K extends string>(name: K, run: () => unknown): unknown {
  const g = globalThis as Record<string, unknown>
  const saved = Object.getOwnPropertyDescriptor(g, name)
  delete g[name]
  try {
    return run()
  } finally {
    if (saved) Object.defineProperty(g, name, saved)
  }
}

async function withoutAsync<T>(names: string[], run: () => Promise<T>): Promise<T> {
  const g = globalThis as Record<string, unknown>
  const saved = names.map((name) => [name, Object.getOwnPropertyDescriptor(g, name)] as const)
  for (const name of names) delete g[name]
  try {
    return await run()
  } finally {
    for (const [name, descriptor] of saved) if (descriptor) Object.defineProperty(g, name, descriptor)
  }
}

const SAMPLES = [
  '',
  'plain ascii',
  'é',
  'ünïcödé',
  '€ sign',
  '日本語のテキスト',
  '🎉 party',
  'a😀b😀c',
  '\u07ff\u0800\uffff',
  '\ud800 lone high',
  'lone low \udc00',
]

describe('utf8ByteLength and its counted fallback', () => {
  it.each(SAMPLES)('counts %j as Buffer.byteLength and TextEncoder do', (text) => {
    const expected = new TextEncoder().encode(text).length
    expect(Buffer.byteLength(text, 'utf8')).toBe(expected)
    expect(countUtf8Bytes(text)).toBe(expected)
    expect(utf8ByteLength(text)).toBe(expected)
  })

  it('counts without Buffer', () => {
    expect(without('Buffer', () => utf8ByteLength('日本 🎉'))).toBe(11)
  })
})

describe('base64Utf8', () => {
  it('gives the same text with Buffer and with TextEncoder and btoa', () => {
    for (const text of ['key:', 'wrïte-kéy:', '🎉:']) {
      const expected = Buffer.from(text, 'utf8').toString('base64')
      expect(base64Utf8(text)).toBe(expected)
      expect(without('Buffer', () => base64Utf8(text))).toBe(expected)
    }
  })
})

describe('the host process', () => {
  it('loads a built-in through process.getBuiltinModule, and nothing where there is no process', () => {
    expect(nodeBuiltin<typeof zlib>('node:zlib')?.gzipSync).toBe(zlib.gzipSync)
    expect(nodeBuiltin('node:no-such-module')).toBeUndefined()
    expect(without('process', () => nodeBuiltin('node:zlib'))).toBeUndefined()
  })

  it('describes the runtime without process.version where there is no process', () => {
    expect(runtimeDescription()).toBe(`node ${process.version}`)
    expect(without('process', () => runtimeDescription())).toBe('unknown')
  })

  it('adds a process listener only where process.on works, and never throws', () => {
    const listener = () => undefined
    expect(onProcessEvent('beforeExit', listener)).toBe(true)
    expect(process.listeners('beforeExit')).toContain(listener)
    process.removeListener('beforeExit', listener)
    const on = jest.spyOn(process, 'on').mockImplementation(() => {
      throw new TypeError('process.on is not a function')
    })
    try {
      expect(onProcessEvent('beforeExit', listener)).toBe(false)
    } finally {
      on.mockRestore()
    }
    expect(without('process', () => onProcessEvent('beforeExit', listener))).toBe(false)
  })

  it('(un)refs a timer where it can, and ignores numbers and an unref that throws', () => {
    const timer = setTimeout(() => undefined, 60_000)
    setTimerRef(timer, false)
    expect(timer.hasRef()).toBe(false)
    setTimerRef(timer, true)
    expect(timer.hasRef()).toBe(true)
    clearTimeout(timer)
    expect(() => setTimerRef(42, false)).not.toThrow()
    expect(() =>
      setTimerRef(
        {
          unref() {
            throw new TypeError('unref is not a function')
          },
        },
        false,
      ),
    ).not.toThrow()
  })
})

describe('gzip', () => {
  const text = JSON.stringify({ batch: [{ event: 'Compressed', text: 'é'.repeat(500) }] })

  it('gzips and gunzips with node:zlib', async () => {
    expect(canGzip()).toBe(true)
    expect(gunzipSync(await gzipText(text)).toString('utf8')).toBe(text)
    expect(Buffer.from(await gunzipBytes(gzipSync(text))).toString('utf8')).toBe(text)
  })

  it('gzips and gunzips with CompressionStream and DecompressionStream where there is no node:zlib', async () => {
    await withoutAsync(['process'], async () => {
      expect(canGzip()).toBe(true)
      const gzipped = await gzipText(text)
      expect(gunzipSync(gzipped).toString('utf8')).toBe(text)
      expect(new TextDecoder().decode(await gunzipBytes(gzipSync(text)))).toBe(text)
    })
  })

  it('cannot gzip where there is neither (Vercel Edge)', async () => {
    await withoutAsync(['process', 'CompressionStream'], () => Promise.resolve(expect(canGzip()).toBe(false)))
  })
})
