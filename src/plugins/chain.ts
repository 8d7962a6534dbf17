import { ValidationError } from '../core/errors'
import { MESSAGE_TYPES } from '../core/limits'
import { describeThrown, describeValue } from '../core/describe'
import { fieldOf } from '../core/own-options'
import type { MessageType } from '../core/types'
import type { PluginChain, PluginStep } from './types'


/**
 * Checks the `plugins` option and builds, once, the list of steps each message type goes through,
 * in the order given. `undefined` or an empty list: no plugins (the client's path is unchanged).
 * @throws ValidationError naming the plugin (by its position and name) and the rule.
 */
export function buildPluginChain(value: unknown): PluginChain | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) throw new ValidationError('plugins', `must be an array of plugins, got ${describeValue(value)}`, 'Analytics')
  if (value.length === 0) return undefined
  const chain: Record<MessageType, PluginStep[]> = { identify: [], track: [], page: [], screen: [], group: [], alias: [] }
  const names = new Set<string>()
  // Each element and each of its fields read once; a field of Object.prototype (a polluted
  // prototype) is never taken for the plugin's, though one of its class is (see fieldOf).
  const plugins: unknown[] = Array.prototype.slice.call(value)
  plugins.forEach((plugin, index) => {
    const { step, types } = checkPlugin(plugin, index, names)
    for (const type of types) chain[type].push(step)
  })
  for (const type of MESSAGE_TYPES) Object.freeze(chain[type])
  return Object.freeze(chain)
}

function checkPlugin(plugin: unknown, index: number, names: Set<string>): { step: PluginStep; types: readonly MessageType[] } {
  const field = `plugins[${index}]`
  if (typeof plugin !== 'object' || plugin === null) {
    throw new ValidationError(field, `must be a plugin object ({ name, process }), got ${describeValue(plugin)}`, 'Analytics')
  }
  const [name, process, types, onError] = ['name', 'process', 'types', 'onError'].map((key) => readField(plugin, key, field))
  if (typeof name !== 'string' || name.trim() === '')
    throw new ValidationError(`${field}.name`, 'is required and must be a non-empty string', 'Analytics')
  if (names.has(name))
    throw new ValidationError(`${field}.name`, `must be unique among the plugins ("${name}" is given twice)`, 'Analytics')
  names.add(name)
  const where = `${field}.`
  if (typeof process !== 'function') {
    throw new ValidationError(`${where}process`, `must be a function (plugin "${name}"), got ${describeValue(process)}`, 'Analytics')
  }
  const typeList = types === undefined ? MESSAGE_TYPES : Array.isArray(types) ? (Array.prototype.slice.call(types) as unknown[]) : undefined
  if (typeList === undefined || typeList.some((t) => !MESSAGE_TYPES.includes(t as MessageType))) {
    throw new ValidationError(
      `${where}types`,
      `must be an array of message types (${MESSAGE_TYPES.join(', ')}) (plugin "${name}")`,
      'Analytics',
    )
  }
  if (onError !== undefined && onError !== 'drop' && onError !== 'continue') {
    throw new ValidationError(`${where}onError`, `must be "drop" or "continue" (plugin "${name}")`, 'Analytics')
  }
  // Bound once, so that a plugin object changed later does not change the client.
  const bound = (process as (...args: unknown[]) => unknown).bind(plugin)
  return { step: Object.freeze({ name, failsOpen: onError === 'continue', process: bound }), types: typeList as readonly MessageType[] }
}

function readField(plugin: object, key: string, field: string): unknown {
  try {
    return fieldOf(plugin, key)
  } catch (err) {
    throw new ValidationError(`${field}.${key}`, `could not be read: its getter threw ${describeThrown(err)}`, 'Analytics', { cause: err })
  }
}
