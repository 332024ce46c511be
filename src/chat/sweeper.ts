/**
 * The periodic sweep: ends replies whose lease has passed (their instance died) as `failed`,
 * and drops expired Idempotency-Key records. Every instance (process) sweeps each database it
 * uses once, however many plugins it mounts on it, at the shortest interval any of them asks
 * for; the statements are conditional, so instances sweeping at once do each thing once. The
 * timer never keeps a process alive on its own.
 */

import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { sweepExpired } from "../runs/store.ts";
import { purgeExpired } from "./idempotency.ts";

const sweepers = new WeakMap<Db, { everyMs: number; timer: ReturnType<typeof setInterval> }>();

export function startSweeper(deps: { db: Db; now: () => number; logger: Logger }, everyMs: number): void {
  const current = sweepers.get(deps.db);
  if (current && current.everyMs <= everyMs) return;
  if (current) clearInterval(current.timer);
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const ended = await sweepExpired(deps.db, deps.now());
      if (ended.length) deps.logger.warn({ message_ids: ended }, "replies whose instance stopped were ended as failed");
      await purgeExpired(deps.db, deps.now());
    } catch (error) {
      // The store may be closing or down; the next sweep (or any reader) tries again.
      deps.logger.debug({ error }, "sweep failed");
    } finally {
      running = false;
    }
  }, everyMs);
  // Bun/Node timers have unref(); Deno's are numbers, unreferenced through Deno.unrefTimer.
  if (typeof timer === "object") (timer as { unref?: () => void }).unref?.();
  else (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno?.unrefTimer?.(timer as unknown as number);
  sweepers.set(deps.db, { everyMs, timer });
}
