/** The free-space guard of a PGlite store (over a fake disk) and the fence around a PANICked instance (over a fake PGlite). */
import { describe, expect, test } from "bun:test";
import type { PGlite } from "@electric-sql/pglite";
import { DiskFull, diskRoom, isPlainRead, roomLimits } from "../../src/runtime/disk-room.ts";
import { fence, StoreRestarting } from "../../src/runtime/panic-fence.ts";

const MiB = 1024 * 1024;

describe("disk room", () => {
  test("16 MiB WAL segments: requests that write stop below 32 MiB free, statements that write below 20 MiB", () => {
    expect(roomLimits(16 * MiB)).toEqual({ requestsBelow: 32 * MiB, statementsBelow: 20 * MiB });
  });

  test("what each level refuses, read again once the cached reading is a tenth of a second old", async () => {
    let free = 40 * MiB;
    const room = diskRoom("/data/pg", roomLimits(16 * MiB), () => free);
    expect(room.writesRefused()).toBeUndefined();
    expect(room.refusal("insert into t values (1)")).toBeUndefined();

    free = 25 * MiB;
    await Bun.sleep(120);
    expect(room.writesRefused()).toBe(
      "the disk holding /data/pg has 25.0 MiB free, below the 32.0 MiB Parley keeps for the database's write-ahead log",
    );
    expect(room.refusal("insert into t values (1)")).toBeUndefined();
    expect(room.roomToOpen()).toBe(true);

    free = 19 * MiB;
    await Bun.sleep(120);
    const refused = room.refusal("insert into t values (1)");
    expect(refused).toBeInstanceOf(DiskFull);
    expect(refused).toMatchObject({ code: "53100", name: "DiskFull" });
    expect(refused?.message).toContain("19.0 MiB free, below the 20.0 MiB");
    expect(room.refusal(undefined)).toBeInstanceOf(DiskFull); // a transaction
    expect(room.refusal("select 1")).toBeUndefined();
    expect(room.roomToOpen()).toBe(false);
  });

  test("plain reads: SELECT and SHOW without row locks; anything else may write", () => {
    for (const sql of [
      "select 1",
      "  SELECT * from t",
      "(select 1) union (select 2)",
      "show wal_segment_size",
      "select 1;",
    ])
      expect(isPlainRead(sql), sql).toBe(true);
    for (const sql of [
      "insert into t values (1)",
      "update t set x = 1",
      "delete from t",
      'with "gate" as (select 1) insert into rate_limits select 1',
      "select * from t for update skip locked",
      "select * from t for no key update",
      "select * from t for share",
      "begin",
      "create table t (x int)",
      "selected",
      "select 1; delete from t",
    ])
      expect(isPlainRead(sql), sql).toBe(false);
  });
});

/** A stand-in for PGlite's entry points: the stream call fails with `failure` once set. */
function fakePglite() {
  const calls: string[] = [];
  let failure: unknown;
  const db = {
    execProtocolRawSync(message: Uint8Array) {
      calls.push(`raw ${message.length}`);
      return new Uint8Array();
    },
    async execProtocol(message: Uint8Array) {
      return this.execProtocolRawSync(message);
    },
    async execProtocolStream(message: Uint8Array) {
      this.execProtocolRawSync(message);
      if (failure) throw failure;
    },
  };
  return { db, calls, failWith: (e: unknown) => (failure = e) };
}

describe("panic fence", () => {
  test("an ERROR passes through and the instance stays usable", async () => {
    const { db, calls, failWith } = fakePglite();
    const panics: Error[] = [];
    fence(db as unknown as PGlite, (e) => panics.push(e));
    failWith(Object.assign(new Error("duplicate key"), { severity: "ERROR", code: "23505" }));
    await expect(db.execProtocolStream(new Uint8Array(1))).rejects.toMatchObject({ code: "23505" });
    await db.execProtocol(new Uint8Array(2));
    expect(calls).toEqual(["raw 1", "raw 2"]);
    expect(panics).toEqual([]);
  });

  test("after a PANIC nothing enters the instance again: every call throws StoreRestarting at once", async () => {
    const { db, calls, failWith } = fakePglite();
    const panics: Error[] = [];
    fence(db as unknown as PGlite, (e) => panics.push(e));
    const panic = Object.assign(new Error("could not write to file"), { severity: "PANIC", code: "53100" });
    failWith(panic);
    await expect(db.execProtocolStream(new Uint8Array(1))).rejects.toBe(panic);
    expect(panics).toEqual([panic]);
    // The Sync PGlite sends after a failed statement, a ROLLBACK, the next statement, close()'s goodbye.
    await expect(db.execProtocolStream(new Uint8Array(2))).rejects.toBeInstanceOf(StoreRestarting);
    await expect(db.execProtocol(new Uint8Array(3))).rejects.toMatchObject({ code: "57P03", cause: panic });
    expect(() => db.execProtocolRawSync(new Uint8Array(4))).toThrow(StoreRestarting);
    expect(calls).toEqual(["raw 1"]);
    expect(panics).toHaveLength(1);
  });
});
