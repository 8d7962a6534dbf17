import type * as Zlib from 'node:zlib'
import { loadNodeBuiltin, nodeBuiltin } from './runtime'

// Whether the host can gzip lives in runtime.ts: the client asks it at construction, and loads
// this module only on its first compressed send (`compress` is off by default).
export { canGzip } from './runtime'

type WebStream = CompressionStream | DecompressionStream

/**
 * `text` in UTF-8 (or those bytes themselves), gzipped: with `node:zlib` where the host has it,
 * else with `CompressionStream`.
 */
export async function gzipText(text: string | Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const zlib = await loadNodeBuiltin<typeof Zlib>('node:zlib')
  if (zlib) {
    return new Promise((resolve, reject) => zlib.gzip(text, (err, result) => (err ? reject(err) : resolve(result))))
  }
  return pipeThrough(new CompressionStream('gzip'), typeof text === 'string' ? new TextEncoder().encode(text) : text)
}

/**
 * Gunzips `bytes`: synchronously with `node:zlib` where the host has it (so a recorder keeps the
 * order of the requests it is given), else with `DecompressionStream`.
 */
export function gunzipBytes(bytes: Uint8Array): Uint8Array | Promise<Uint8Array> {
  const zlib = nodeBuiltin<typeof Zlib>('node:zlib')
  if (zlib) return zlib.gunzipSync(bytes)
  return pipeThrough(new DecompressionStream('gzip'), bytes)
}

async function pipeThrough(stream: WebStream, bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const writer = stream.writable.getWriter()
  // A failure surfaces where the readable side is read; these two promises must not reject unheard.
  writer
    .write(bytes as Uint8Array<ArrayBuffer>)
    .then(() => writer.close())
    .catch(() => undefined)
  return new Uint8Array(await new Response(stream.readable).arrayBuffer())
}
