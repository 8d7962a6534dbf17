import type { AnyEvents, EventCatalog, Message, MessageType, Properties, Traits } from '../core/types'

/** A track message as it went on the wire. `properties` are the parsed JSON the client sent. */
export interface WireTrack<P = Properties> extends Message {
  type: 'track'
  event: string
  properties?: P
}

/** An identify message as it went on the wire. */
export interface WireIdentify<T = Traits> extends Message {
  type: 'identify'
  traits?: T
}

/** A page message as it went on the wire. */
export interface WirePage extends Message {
  type: 'page'
  name?: string
  category?: string
  properties?: Properties
}

/** A screen message as it went on the wire. */
export interface WireScreen extends Message {
  type: 'screen'
  name?: string
  category?: string
  properties?: Properties
}

/** A group message as it went on the wire. `groupId` is always a string on the wire. */
export interface WireGroup<T = Traits> extends Message {
  type: 'group'
  groupId: string
  traits?: T
}

/** An alias message as it went on the wire: sent on its own, so its body also carries `sentAt`. */
export interface WireAlias extends Message {
  type: 'alias'
  userId: string
  previousId: string
  sentAt: string
}

/** The wire form of each message type, with the traits types of a typed client. */
export interface WireMessages<UserTraits = Traits, GroupTraits = Traits> {
  identify: WireIdentify<UserTraits>
  track: WireTrack
  page: WirePage
  screen: WireScreen
  group: WireGroup<GroupTraits>
  alias: WireAlias
}

/** The wire form of a message of type `T`. */
export type WireMessageOf<T extends MessageType> = WireMessages[T]

/** The track messages of a catalog: `event` is one of its names and `properties` that event's type. */
export type WireTrackOf<E extends EventCatalog = AnyEvents, K extends keyof E & string = keyof E & string> = {
  [Name in K]: WireTrack<E[Name]> & { event: Name }
}[K]
