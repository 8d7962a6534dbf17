// Type-level assertions for the type tests: `expectType<Equal<A, B>>(true)` compiles only when A and B
// are the same type (not merely assignable), and `expectType<false>(true)` does not compile.

/** `true` when `A` and `B` are identical types, else `false`. */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

/** `true` when each of `A` and `B` is assignable to the other (weaker than {@link Equal}). */
export type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** Compiles only when its type argument is `true`. */
export function expectType<T extends true>(value: T): T {
  return value
}

/** A value of any type, for type tests that never run. */
export declare function any<T>(): T
