/**
 * Test helpers for code that uses eventrail: `import { Recorder } from 'eventrail/testing'`.
 * @module eventrail/testing
 */
export { Recorder } from './recorder'
export type { RecordedRequest, RecorderOptions, RecorderResponse } from './recorder'
export type { MessageFilter, MessageQuery } from './query'
export type { WireAlias, WireGroup, WireIdentify, WireMessageOf, WireMessages, WirePage, WireScreen, WireTrack, WireTrackOf } from './wire'
