import { ENDPOINTS } from './ingest'

// A Host header worth repeating in a hint: a name or an address, with a port.
const PLAIN_HOST = /^[\w.-]+(?::\d+)?$|^\[[\d:a-f.]+\](?::\d+)?$/i

/**
 * Whether a request outside `/v1/*` is a client's request rather than the debugger page's: every
 * POST but the page's own `/api/clear`. A client whose host has a path (`http://127.0.0.1:4040/api`)
 * sends its batches there; they are answered 404 and shown like the wire interface's requests.
 */
export function isStrayPost(method: string | undefined, path: string): boolean {
  return method === 'POST' && path !== '/api/clear'
}

/**
 * Why a path is not an endpoint, for the 404 body, the terminal and the page. A path that ends in
 * an endpoint (`/v1/v1/batch`) comes from a client whose host has a path: the text says which
 * part to remove and what to set the host to.
 */
export function unknownPathError(path: string, hostHeader: string | undefined): string {
  const endpoint = [...ENDPOINTS.keys()].find((known) => path.endsWith(known) && path !== known)
  if (endpoint === undefined) return `no endpoint ${path}: the wire interface has ${[...ENDPOINTS.keys()].join(', ')}`
  const prefix = path.slice(0, -endpoint.length)
  const url = hostHeader !== undefined && PLAIN_HOST.test(hostHeader) ? `"http://${hostHeader}"` : "this collector's URL, with no path"
  return `no endpoint ${path}: the client's host ends in "${prefix}" and the client adds ${endpoint} itself; set the client's host to ${url}`
}
