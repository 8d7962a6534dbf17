/** The six kinds of message of the wire interface. */
export type MessageType = 'identify' | 'track' | 'page' | 'screen' | 'group' | 'alias'

/** An identifier: a string, or a number that is sent as its decimal string. */
export type Id = string | number

/** Free-form properties of an event, page or screen. */
export type Properties = Record<string, unknown>

/** Free-form traits of a user or a group. */
export type Traits = Record<string, unknown>

/**
 * Destination selection: destination names (case-sensitive) to `true` or `false`; `All: false`
 * disables every destination not set to `true`. Values are booleans (the wire spec's rule): anything else is refused.
 */
export type Integrations = { All?: boolean } & Record<string, boolean>

/** Extra information about a message that is not part of the call itself. */
export interface Context {
  /** The end user's IP address. */
  ip?: string
  /** The end user's locale, e.g. `en-US`. */
  locale?: string
  /** `true` when the call is sent from the user's device: the service then collects the IP address. */
  direct?: boolean
  /** The device the call is about. */
  device?: { type?: string; name?: string; [key: string]: unknown }
  /** Anything else. `library` is filled in by eventrail unless you set it. */
  [key: string]: unknown
}

/**
 * The identity rule of the wire spec: at least one of `userId` and `anonymousId`.
 * A message with neither does not compile.
 */
export type Identity = { userId: Id; anonymousId?: Id | null } | { userId?: Id | null; anonymousId: Id }

/** Fields every message may carry. */
export interface CommonFields {
  /** Extra information about the message; `context.library` is added by eventrail. */
  context?: Context
  /** Destinations to enable or disable for this message. */
  integrations?: Integrations
  /** When the message took place (a Date or an ISO-8601 string). Default: the time of the call. */
  timestamp?: Date | string
  /** A unique id for de-duplication. Default: a new UUID. */
  messageId?: string
}

/** The fields of `identify`. */
export type IdentifyMessage<T extends object = Traits> = Identity & CommonFields & { traits?: T }

/** A catalog of events: event name to the type of its properties. */
export type EventCatalog = object

/** The catalog used when none is given: any event name, free-form properties. */
export type AnyEvents = Record<string, Properties>

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends P`: is every property of P optional?
type PropertiesField<P> = {} extends P ? { properties?: P } : { properties: P }

/** `event` and `properties` of a track message, checked against the catalog when one is given. */
export type EventFields<E extends EventCatalog> = string extends keyof E
  ? { event: string; properties?: Properties }
  : { [K in keyof E & string]: { event: K } & PropertiesField<E[K]> }[keyof E & string]

/** The fields of `track`. With a catalog, `event` must be one of its names and `properties` must match. */
export type TrackMessage<E extends EventCatalog = AnyEvents> = Identity & CommonFields & EventFields<E>

declare const untypedEvent: unique symbol
/** What only a value typed `any` is assignable to: an event name the program does not know. */
interface UntypedEventName {
  readonly [untypedEvent]: true
}

/**
 * What `track` takes: a {@link TrackMessage}. With a catalog, also a message whose `event` is typed
 * `any` (a name from outside the program, e.g. parsed JSON), with free-form properties: the
 * compiler cannot check it, a plan still does at run time. The identity rule holds for both.
 */
export type TrackInput<E extends EventCatalog = AnyEvents> = string extends keyof E
  ? TrackMessage<E>
  : (Identity & CommonFields & { event: UntypedEventName; properties?: Properties }) | TrackMessage<E>

/** Properties the service recognizes on a page. */
export interface PageProperties extends Properties {
  /** The page's full URL. */
  url?: string
  /** The page's title. */
  title?: string
  /** The URL of the page the user came from. */
  referrer?: string
  /** The URL's path, e.g. `/docs/install`. */
  path?: string
}

/** The fields of `page`. */
export type PageMessage = Identity & CommonFields & { name?: string; category?: string; properties?: PageProperties }

/** The fields of `screen`. */
export type ScreenMessage = Identity & CommonFields & { name?: string; category?: string; properties?: Properties }

/** The fields of `group`. */
export type GroupMessage<T extends object = Traits> = Identity & CommonFields & { groupId: Id; traits?: T }

/** The fields of `alias`: both ids are required. */
export type AliasMessage = CommonFields & { userId: Id; previousId: Id }

/** A message as it goes on the wire, after normalization. */
export interface Message {
  /** The message's kind, set by the method that queued it. */
  type: MessageType
  /** The caller's `messageId`, or a new UUID. */
  messageId: string
  /** ISO-8601: the caller's timestamp, or the time of the call. */
  timestamp: string
  /** The caller's context, with `library` set to eventrail's name and version. */
  context: Context & { library: { name: string; version: string } }
  /** The user's id, as a string. */
  userId?: string
  /** The anonymous id, as a string. */
  anonymousId?: string
  /** The other fields of the message, as given (`event`, `properties`, `traits`, `groupId` …). */
  [key: string]: unknown
}

/**
 * Called once per message (or once per `flush`) with its outcome: `err` is undefined when the
 * message was delivered (or, with `enable: false`, accepted). `batch` holds the messages of the
 * request that carried it, as sent; it is undefined for a message that was never queued.
 */
export type Callback = (err: Error | undefined, batch: Message[] | undefined) => void

/** Receives every error the library reports when set; then no flush rejects and nothing is thrown for a failed request. */
export type ErrorHandler = (error: Error) => void

/** A WHATWG-compatible fetch: the global `fetch`, undici's, node-fetch's, a proxying one, or the client's own over `node:http`. */
export type FetchLike = (
  url: string,
  init: {
    method: string
    headers: Record<string, string>
    /**
     * JSON text, or (with `compress`) gzip bytes over an `ArrayBuffer` (never a `SharedArrayBuffer`):
     * what the DOM's and undici's `BodyInit` take, so that the global `fetch` fits, with or
     * without Node's types.
     */
    body: string | Uint8Array<ArrayBuffer>
    signal: AbortSignal
    /** Always `'manual'`: the client never follows a redirect, and a 3xx fails (see `DeliveryError`). */
    redirect?: 'manual'
    agent?: unknown
  },
) => Promise<{
  /** The HTTP status. */
  status: number
  headers: {
    /** A response header (the client reads `Retry-After`, and `Location` of a 3xx), or `null`. */
    get(name: string): string | null
  }
  /** Reads the body to its end (the client discards it, so that the connection can be reused). */
  arrayBuffer(): Promise<unknown>
}>

/**
 * What `flush()` and `closeAndFlush()` resolve with on a client that has a spool (`undefined`
 * without one): `waiting` messages have no outcome yet because the service is down; they are safe
 * on disk (synced) and go out once it is back, or with the next client on the spool's directory.
 */
export interface FlushResult {
  readonly waiting: number
}
