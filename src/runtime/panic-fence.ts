/**
 * A PGlite instance whose Postgres PANICked is never entered again. After a PANIC (e.g. "could
 * not write to file pg_wal/xlogtemp.N: No space left on device") the backend inside the
 * WebAssembly module no longer reads its input, and PGlite's protocol loop
 * (`execProtocolRawSync`) calls it again and again without ever yielding: the process spins at
 * 100% CPU, and no timer, request or signal handler runs again. PGlite itself sends more after
 * the error: the Sync that ends the failed statement, a ROLLBACK when it happened in a
 * transaction, the next queued statement, the shutdown message of `close()`.
 * So `fence(db)` wraps the instance's own entry points: the first PANIC that comes out of it
 * marks it dead, and from then on every call into it throws at once (StoreRestarting, a 503)
 * instead of entering the loop. The instance is then dropped, not closed (recovering-pglite.ts).
 */
import type { PGlite } from "@electric-sql/pglite";

/** What a statement meets once the instance PANICked: SQLSTATE 57P03 (cannot connect now), a 503. */
export class StoreRestarting extends Error {
  readonly code = "57P03";
  override readonly name = "StoreRestarting";
}

/** Whether `error` is a Postgres error of severity PANIC (the backend is gone). */
export function isPanic(error: unknown): boolean {
  return (error as { severity?: unknown } | null)?.severity === "PANIC";
}

/** Fences `db` (see above); `onPanic` is told once, when the first PANIC comes out. */
export function fence(db: PGlite, onPanic: (error: Error) => void): void {
  let panic: Error | undefined;
  const target = db as unknown as Record<string, unknown>;
  const refuse = () =>
    new StoreRestarting("the store stopped after a PANIC and is reopening; retry shortly", { cause: panic });
  // Every statement, sync and shutdown message goes through this one synchronous call.
  const raw = target.execProtocolRawSync as (message: Uint8Array) => Uint8Array;
  target.execProtocolRawSync = (message: Uint8Array) => {
    if (panic) throw refuse();
    return raw.call(db, message);
  };
  // The PANIC itself surfaces from the asynchronous wrappers, once the messages are parsed.
  for (const name of ["execProtocol", "execProtocolStream"]) {
    const call = target[name] as (...args: unknown[]) => Promise<unknown>;
    target[name] = async (...args: unknown[]) => {
      try {
        return await call.apply(db, args);
      } catch (error) {
        if (!panic && isPanic(error)) {
          panic = error as Error;
          onPanic(panic);
        }
        throw error;
      }
    };
  }
}
