/**
 * A knowledge base's sources: the one implementation behind the routes (routes.ts) and the CLI
 * (on its own store or through a server's admin socket): the CreateSource schema, then
 * checkSourceInput, the statements and the runner, answers in wire form.
 */
import { getSchemaValidator } from "elysia";
import type { SourceOptions } from "../config/options.ts";
import type { Source, SourceSync } from "../contract/sources.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../http/errors.ts";
import { countSourceDocuments } from "../knowledge/index.ts";
import { isId } from "../primitives.ts";
import type { Trace } from "../tracing/index.ts";
import { checkSourceInput, type SourceInput } from "./input.ts";
import { CreateSource } from "./model.ts";
import type { SourceSyncs } from "./runner.ts";
import { findSource, findSync, insertSource, lastSyncs, removeSource, type SourceRow, sourcesOf } from "./store.ts";
import { sourceWire, syncWire } from "./wire.ts";

export interface ManageDeps {
  db: Db;
  now: () => number;
  sources: SourceOptions;
  syncs: Pick<SourceSyncs, "start" | "stop">;
}

const createSource = getSchemaValidator(CreateSource);

type FieldSchema = { error?: unknown; anyOf?: { const?: unknown }[] };

/**
 * `body` checked against the route's schema: 400 invalid_request naming the first bad field, in
 * its schema's words (the field's own, not an inner item's: an empty glob is "at most 50 globs of
 * 1–500 characters"), or the values it may take.
 */
export function checkCreateSource(body: unknown): SourceInput {
  if (createSource.Check(body)) return body as SourceInput;
  const [first] = [...createSource.Errors(body)] as { path: string }[];
  const param = first?.path.split("/")[1] || "url";
  const field = (CreateSource.properties as Record<string, FieldSchema>)[param];
  const choices = field?.anyOf?.map((s) => s.const);
  const message =
    typeof field?.error === "string"
      ? field.error.replace(/^Invalid field:/, `Invalid field '${param}':`)
      : choices?.length && choices.every((c) => typeof c === "string")
        ? `Invalid field '${param}': one of ${choices.join(", ")}.`
        : `Invalid field '${param}'.`;
  throw new ApiError("invalid_request", message, { param });
}

async function wire(db: Db, rows: SourceRow[]): Promise<Source[]> {
  const syncs = await lastSyncs(
    db,
    rows.map((r) => r.id),
  );
  return Promise.all(rows.map(async (r) => sourceWire(r, syncs.get(r.id), await countSourceDocuments(db, r.id))));
}

/** Adds the source and starts its first sync; 409 `already_exists` when the knowledge base crawls this URL. */
export async function addSource(deps: ManageDeps, kbId: string, body: unknown, trace?: Trace): Promise<Source> {
  const input = await checkSourceInput(checkCreateSource(body), deps.sources);
  const row = await insertSource(deps.db, { ...input, kbId }, new Date(deps.now()));
  if (!row)
    throw new ApiError("already_exists", "This knowledge base already has a source with this URL.", { param: "url" });
  const sync = await deps.syncs.start(row, "created", trace);
  return sourceWire(row, sync, 0);
}

export async function listSources(db: Db, kbId: string): Promise<Source[]> {
  return wire(db, await sourcesOf(db, kbId));
}

export async function getSource(db: Db, kbId: string, id: string): Promise<Source | undefined> {
  const row = isId("src", id) ? await findSource(db, kbId, id) : undefined;
  return row ? (await wire(db, [row]))[0] : undefined;
}

/** Starts a sync, or finds the running one; undefined when there is no such source. */
export async function syncSource(
  deps: ManageDeps,
  kbId: string,
  id: string,
  trace?: Trace,
): Promise<SourceSync | undefined> {
  const row = isId("src", id) ? await findSource(deps.db, kbId, id) : undefined;
  const sync = row && (await deps.syncs.start(row, "manual", trace));
  return sync && syncWire(sync);
}

/** Stops its local sync, then deletes the source with its documents; false when there was none. */
export async function deleteSource(deps: ManageDeps, kbId: string, id: string): Promise<boolean> {
  const row = isId("src", id) ? await findSource(deps.db, kbId, id) : undefined;
  if (!row) return false;
  await deps.syncs.stop(row.id);
  return removeSource(deps.db, kbId, row.id);
}

/** A sync as it is now (its counts move while it runs). */
export async function readSync(db: Db, id: string): Promise<SourceSync | undefined> {
  const row = await findSync(db, id);
  return row && syncWire(row);
}
