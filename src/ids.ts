/**
 * Prefixed, time-sortable ids (TypeID: a UUIDv7 in Crockford base32). Sorting ids sorts by
 * creation time, which keeps keyset pagination and message order stable.
 */
import { typeid } from "typeid-js";

/** The prefixes this API hands out. */
export type IdPrefix = "conv" | "msg" | "key" | "doc" | "chunk" | "req" | "kb";

export const newId = (prefix: IdPrefix): string => typeid(prefix).toString();

/** True when `value` has the shape of an id we issued with `prefix`. */
export const isId = (prefix: IdPrefix, value: string): boolean =>
  new RegExp(`^${prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`).test(value);
