import { ValidationError } from '../errors'
import { describeValue } from '../message/describe'
import type { MessageType } from '../types'
import type { PluginChain, PluginStep } from './types'

const MESSAGE_TYPES: readonly MessageType[] = ['identify', 'track', 'page', 'screen', 'group', 'alias']

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
  value.forEach((plugin: unknown, index) => {
    const step = checkPlugin(plugin, index, names)
    const types = (plugin as { types?: readonly MessageType[] }).types ?? MESSAGE_TYPES
    for (const type of types) chain[type].push(step)
  })
  for (const type of MESSAGE_TYPES) Object.freeze(chain[type])
  return Object.freeze(chain)
}

function checkPlugin(plugin: unknown, index: number, names: Set<string>): PluginStep {
  const field = `plugins[${index}]`
  if (typeof plugin !== 'object' || plugin === null) {
    throw new ValidationError(field, `must be a plugin object ({ name, process }), got ${describeValue(plugin)}`, 'Analytics')
  }
  const { name, process, types, onError } = plugin as Record<string, unknown>
  if (typeof name !== 'string' || name.trim() === '')
    throw new ValidationError(`${field}.name`, 'is required and must be a non-empty string', 'Analytics')
  if (names.has(name))
    throw new ValidationError(`${field}.name`, `must be unique among the plugins ("${name}" is given twice)`, 'Analytics')
  names.add(name)
  const where = `${field}.`
  if (typeof process !== 'function') {
    throw new ValidationError(`${where}process`, `must be a function (plugin "${name}"), got ${describeValue(process)}`, 'Analytics')
  }
  if (types !== undefined && (!Array.isArray(types) || types.some((t) => !MESSAGE_TYPES.includes(t as MessageType)))) {
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
  return Object.freeze({ name, failsOpen: onError === 'continue', process: bound })
}
