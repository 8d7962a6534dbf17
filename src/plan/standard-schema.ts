// The Standard Schema v1 interface (https://standardschema.dev), written out here so that
// eventrail depends on no schema library, not even for types. Zod, Valibot, ArkType and others
// implement it: any of their schemas is a `StandardSchemaV1`.

/** A schema of any library that implements Standard Schema v1. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': StandardSchemaV1Props<Input, Output>
}

/** The `~standard` properties of a Standard Schema. */
export interface StandardSchemaV1Props<Input = unknown, Output = Input> {
  /** The version of the spec: 1. */
  readonly version: 1
  /** The library that made the schema (`'zod'`, `'valibot'` …). */
  readonly vendor: string
  /** Checks a value: its result has `issues` when the value does not match. */
  readonly validate: (value: unknown) => StandardSchemaV1Result<Output> | Promise<StandardSchemaV1Result<Output>>
  /** The inferred input and output types (types only, never set at run time). */
  readonly types?: StandardSchemaV1Types<Input, Output> | undefined
  /** Standard JSON Schema, where the library implements it (Zod 4 does). */
  readonly jsonSchema?: StandardJSONSchemaV1Converter | undefined
}

/** What `validate` returns: the value, or the issues. */
export type StandardSchemaV1Result<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: readonly StandardSchemaV1Issue[] }

/** One reason a value does not match. */
export interface StandardSchemaV1Issue {
  /** The library's description of the problem. */
  readonly message: string
  /** Where in the value: keys, or segments holding a key. */
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined
}

/** The input and output types of a schema. */
export interface StandardSchemaV1Types<Input, Output> {
  readonly input: Input
  readonly output: Output
}

/** The input type of a Standard Schema. */
export type StandardSchemaV1InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input']

/** Standard JSON Schema's converter (`~standard.jsonSchema`), as far as eventrail uses it. */
export interface StandardJSONSchemaV1Converter {
  /** The JSON Schema of the values the schema accepts. */
  readonly input: (options: { readonly target: string }) => Record<string, unknown>
}
