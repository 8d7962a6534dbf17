const LANGUAGE_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/

/**
 * The user's preferred locale from an `Accept-Language` header: the tag with the highest `q`
 * (the first of equals), `*` left out. `undefined` when there is none.
 */
export function localeOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  // The usual header names its first choice without a weight (q=1, the most there is).
  const comma = header.indexOf(',')
  const first = (comma < 0 ? header : header.slice(0, comma)).trim()
  if (!first.includes(';') && first !== '*' && LANGUAGE_TAG.test(first)) return first
  let best: string | undefined
  let bestQ = 0
  for (const part of header.split(',')) {
    const [tag, ...params] = part.trim().split(';')
    if (tag === '' || tag === '*' || !LANGUAGE_TAG.test(tag)) continue
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (Number.isFinite(q) && q > bestQ) {
      best = tag
      bestQ = q
    }
  }
  return best
}

const UTM: readonly (readonly [string, string])[] = [
  ['utm_campaign', 'name'],
  ['utm_source', 'source'],
  ['utm_medium', 'medium'],
  ['utm_term', 'term'],
  ['utm_content', 'content'],
]

/** `context.campaign` from a URL's `utm_*` parameters, in analytics.js's names; `undefined` without any. */
export function campaignOf(params: URLSearchParams): Record<string, string> | undefined {
  let campaign: Record<string, string> | undefined
  for (const [param, field] of UTM) {
    const value = params.get(param)
    if (value !== null && value !== '') (campaign ??= {})[field] = value
  }
  return campaign
}
