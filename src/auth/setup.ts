/**
 * First run without a shell. While the store has no active admin key, each server prints a
 * one-time setup code at start (server.ts), and POST /v1/setup exchanges a live one, once, for the
 * first admin key. The codes live in the database (table `setup_codes`, their SHA-256 only), so
 * every instance on one PostgreSQL accepts every instance's code. A code is void after
 * SETUP_CODE_TTL_MS, when its server stops gracefully, and as soon as the first admin key exists
 * (by this exchange or by the CLI); setup is then over for good (`parley keys create --admin`
 * remains).
 *
 * The database decides a race: the exchange first claims the one-time mark `first_admin_setup`
 * (instance_secrets' primary key) in the transaction that creates the key, so two exchanges at
 * once, with one code or two, create exactly one key; the other waits on the mark, then hears 409.
 */
import { and, eq, gt, isNull, lte, or } from "drizzle-orm";
import type { SetupState } from "../contract/keys.ts";
import type { Db } from "../db/client.ts";
import { claimMark, hasMark } from "../db/instance-values.ts";
import { apiKeys, setupCodes } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import { sha256Hex } from "../primitives.ts";
import { createKey } from "./keys-admin.ts";

/** How long a printed setup code stays valid. */
export const SETUP_CODE_TTL_MS = 60 * 60_000;
/** The mark recorded by the one exchange that succeeded. */
const SETUP_DONE = "first_admin_setup";
// Crockford's base32 (no I, L, O, U): a code copied by hand from a log is not misread.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A new code: 20 random characters of 32 (100 bits), in groups of five. */
export function generateSetupCode(): string {
  // 256 is 8 × 32: the low five bits of a random byte are uniform.
  const chars = Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => ALPHABET[b & 31]).join("");
  return chars.match(/.{5}/g)!.join("-");
}

/** The code as typed, canonical: case, spaces and dashes do not matter; O reads as 0, I and L as 1. */
export const normalizeSetupCode = (typed: string): string =>
  typed.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");

const hashOf = (code: string) => sha256Hex(`parley-setup:${normalizeSetupCode(code)}`);

/** Whether an active admin key exists: unrevoked and unexpired. */
async function adminExists(db: Db, now: Date): Promise<boolean> {
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.role, "admin"),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

export async function setupState(db: Db, now = new Date()): Promise<SetupState> {
  if ((await hasMark(db, SETUP_DONE)) || (await adminExists(db, now))) return "done";
  const live = await db
    .select({ hash: setupCodes.codeHash })
    .from(setupCodes)
    .where(gt(setupCodes.expiresAt, now))
    .limit(1);
  return live.length > 0 ? "open" : "no_code";
}

/** At start: a new code when the store needs one (null once there is an admin key), stored by its hash. */
export async function issueSetupCode(db: Db, now = new Date()): Promise<{ code: string; expiresAt: Date } | null> {
  await db.delete(setupCodes).where(lte(setupCodes.expiresAt, now));
  if ((await setupState(db, now)) === "done") {
    await db.delete(setupCodes);
    return null;
  }
  const code = generateSetupCode();
  const expiresAt = new Date(now.getTime() + SETUP_CODE_TTL_MS);
  await db.insert(setupCodes).values({ codeHash: await hashOf(code), createdAt: now, expiresAt });
  return { code, expiresAt };
}

/** At a graceful stop: the code this server printed is void. */
export async function withdrawSetupCode(db: Db, code: string): Promise<void> {
  await db.delete(setupCodes).where(eq(setupCodes.codeHash, await hashOf(code)));
}

export const setupClosed = () =>
  new ApiError(
    "setup_closed",
    "Setup is over: an admin key exists. Sign in with an admin key (or create one with `parley keys create --admin`).",
  );
const wrongCode = () =>
  new ApiError(
    "invalid_setup_code",
    "This setup code is wrong, used or expired. Copy the code the server printed at start; restart the server for a new one.",
    { param: "code" },
  );

/**
 * Exchanges a live code for the first admin key: its id and secret (shown once). Refusals: 409
 * `setup_closed` once setup is over (every code is then void), 403 `invalid_setup_code` for a
 * code that is not live. A refused exchange changes nothing.
 */
export async function exchangeSetupCode(
  db: Db,
  input: { code: string; name?: string },
  now = new Date(),
): Promise<{ id: string; secret: string }> {
  const hash = await hashOf(input.code);
  try {
    return await db.transaction(async (tx) => {
      const t = tx as unknown as Db;
      // The mark first: a concurrent exchange waits here, before it has locked any code row.
      if (!(await claimMark(t, SETUP_DONE))) throw setupClosed();
      const used = await t
        .delete(setupCodes)
        .where(and(eq(setupCodes.codeHash, hash), gt(setupCodes.expiresAt, now)))
        .returning({ hash: setupCodes.codeHash });
      if (used.length === 0) throw wrongCode(); // rolls the mark back
      if (await adminExists(t, now)) throw setupClosed();
      const key = await createKey(t, { name: input.name ?? "admin", plan: "pro", role: "admin" }, now);
      await t.delete(setupCodes);
      return key;
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === "setup_closed") await db.delete(setupCodes);
    throw error;
  }
}
