/**
 * Ties a TypeBox route schema to its contract type at compile time: `true satisfies
 * Same<Static<typeof Schema>, ContractType>` fails to type-check as soon as they differ, so the
 * schema (validation, OpenAPI) and the contract (src/contract/) cannot drift apart.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

import { t } from "elysia";

type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: ReturnType<typeof t.Literal<T[K]>> };

/** A union of literals from one of the contract's const arrays, so each enum is written once. */
export const literals = <const T extends readonly string[]>(values: T, options?: Parameters<typeof t.Union>[1]) =>
  t.Union(
    values.map((v) => t.Literal(v)),
    options,
  ) as unknown as ReturnType<typeof t.Union<Literals<T>>>;
