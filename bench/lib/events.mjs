// The events the scenarios send. Deterministic: event `i` is the same in every run and client.

const PRODUCTS = ['Ergonomic Keyboard', 'Wireless Mouse', '27-inch Monitor', 'USB-C Dock', 'Laptop Stand']

/**
 * A track call of about 500 bytes once enriched (type, messageId, timestamp, context.library):
 * the baseline's serialized form is 494–516 bytes.
 */
export function orderCompleted(i) {
  const product = PRODUCTS[i % PRODUCTS.length]
  return {
    userId: `user-${100000 + (i % 50000)}`,
    event: 'Order Completed',
    properties: {
      orderId: `order-${1000000 + i}`,
      checkoutId: `chk-${(i * 7919) % 1000003}`,
      revenue: 49.99 + (i % 100),
      shipping: 4.5,
      tax: 3.25,
      currency: 'USD',
      coupon: 'SPRING-SALE',
      affiliation: 'web-store',
      products: [{ sku: `SKU-${10000 + (i % 997)}`, name: product, price: 49.99, quantity: 1 + (i % 3), category: 'Peripherals' }],
    },
  }
}

const ASCII_WORD = 'lorem ipsum dolor sit amet '
// 2- and 3-byte UTF-8 characters and one 4-byte one: byte counts and character counts differ.
const UTF8_WORD = 'crème brûlée — 東京 ✓ 🚀 '

/** A string of exactly `bytes` UTF-8 bytes, ASCII or multi-byte text. */
export function textOfBytes(bytes, multibyte) {
  const word = multibyte ? UTF8_WORD : ASCII_WORD
  const text = word.repeat(Math.floor(bytes / Buffer.byteLength(word)))
  return text + '.'.repeat(bytes - Buffer.byteLength(text))
}

/**
 * Scenario 5: 300 valid events of 28–31 KB of properties (half multi-byte text) and 20 of
 * ~40 KB that no client may send (over the 32 KB limit per event). Every 16th call is an oversize one.
 * Returns [{ message, valid }].
 */
export function bigPayloads(validCount = 300, oversizeCount = 20) {
  const out = []
  let valid = 0
  let oversize = 0
  for (let i = 0; valid < validCount || oversize < oversizeCount; i++) {
    const isOversize = oversize < oversizeCount && (i % 16 === 15 || valid >= validCount)
    if (isOversize) {
      oversize += 1
      out.push({ valid: false, message: bigEvent(i, 'Oversize Payload', 40 * 1024, i % 2 === 0) })
    } else {
      valid += 1
      const bytes = (28 + (i % 4)) * 1024 - 400 + ((i * 37) % 300)
      out.push({ valid: true, message: bigEvent(i, 'Big Payload', bytes, i % 2 === 1) })
    }
  }
  return out
}

function bigEvent(i, name, bytes, multibyte) {
  return { userId: `user-${i}`, event: name, properties: { index: i, body: textOfBytes(bytes, multibyte) } }
}
