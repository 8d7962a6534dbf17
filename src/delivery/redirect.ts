/**
 * Redirects are never followed. The service does not redirect a tracking POST; a proxy, a captive
 * portal or a hijacked DNS name might, and following one would hand the write key (in
 * `Authorization`) and the messages to another origin, or (301/302/303) turn the POST into a GET
 * without its body that answers 200 while nothing arrived. A 3xx is a failure with its own message,
 * not retried: the same request would be redirected again (docs/decisions.md, "Redirects").
 */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status <= 399
}

const MAX_LOCATION_CHARS = 200

/** Says what the redirect was and where it pointed, without secrets: no user name, password, query or fragment. */
export function describeRedirect(status: number, location: string | null | undefined): string {
  const where = location == null || location === '' ? 'with no Location' : `to ${safeLocation(location)}`
  return `the service answered ${status}, a redirect ${where}, which is not followed (the write key and the messages go only to the configured host: check the host option)`
}

function safeLocation(location: string): string {
  let text: string
  try {
    const url = new URL(location, 'http://relative.invalid')
    text = url.host === 'relative.invalid' ? url.pathname : `${url.protocol}//${url.host}${url.pathname}`
  } catch {
    text = location.split(/[?#]/)[0].replace(/\/\/[^/@]*@/, '//')
  }
  // Control characters and quotes from a hostile header stay out of the message.
  const clean = [...text].map((c) => (c < ' ' || c === '\u007f' || c === '"' || c === '\\' ? '?' : c)).join('')
  return `"${clean.length > MAX_LOCATION_CHARS ? clean.slice(0, MAX_LOCATION_CHARS) + '…' : clean}"`
}
