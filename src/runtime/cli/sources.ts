/**
 * `sources add|list|sync|remove`: a knowledge base's web sources, with the checks, statements and
 * runner of the HTTP routes (sources/manage.ts). Run by a server for a forwarded command, a sync
 * runs there and outlives the command; run by the CLI on its own store, the sync runs in this
 * process, so the command waits for its end (Ctrl-C cancels it; a cancelled sync deletes nothing).
 */
import { parseArgs } from "node:util";
import type { Logger } from "../../config/logger.ts";
import type { SourceOptions } from "../../config/options.ts";
import type { Store } from "../../db/client.ts";
import { ApiError } from "../../http/errors.ts";
import { knowledgeBaseIdsByName } from "../../knowledge/index.ts";
import {
  addSource,
  createSourceSyncs,
  deleteSource,
  getSource,
  listSources,
  type ManageDeps,
  type SourceSyncs,
  syncSource,
} from "../../sources/index.ts";
import { SOURCES_OPTIONS } from "./args.ts";
import type { Io } from "./io.ts";
import { reportSync, sourceLine, waitForSync } from "./sources-report.ts";

const USAGE = `usage:
  sources add URL --kb KB [--type auto|sitemap|crawl|llms_txt] [--include GLOB]... [--exclude GLOB]...
              [--max-pages N] [--max-depth N] [--refresh-hours N] [--allow-large-deletions] [--wait] [--json]
  sources list --kb KB [--json]
  sources sync SOURCE_ID --kb KB [--wait] [--json]
  sources remove SOURCE_ID --kb KB
  (KB: a knowledge base's name or id. --wait: until the sync ends, then its counts; exit 1 unless it
  completed. With no server holding the data folder, the sync runs in this command, which waits for it.)`;

/** What `sources …` needs beyond the store. */
export interface SourcesContext {
  /** How sources crawl (the SOURCES_* variables). */
  sources: SourceOptions;
  /** The running server's syncs, for a forwarded command; absent, syncs run in this process. */
  syncs?: Pick<SourceSyncs, "start" | "stop">;
}

/** The flags only `add` takes. */
const ADD_ONLY = ["type", "include", "exclude", "max-pages", "max-depth", "refresh-hours", "allow-large-deletions"];
/** How the route's field names read on the command line. */
const FLAG_OF: Record<string, string> = {
  url: "URL",
  type: "--type",
  include: "--include",
  exclude: "--exclude",
  max_pages: "--max-pages",
  max_depth: "--max-depth",
  refresh_interval_hours: "--refresh-hours",
};

class Usage extends Error {}

function parse(argv: string[]) {
  const [sub, ...rest] = argv;
  if (!sub) throw new Usage("a subcommand is required: add, list, sync or remove");
  if (!["add", "list", "sync", "remove"].includes(sub)) throw new Usage(`unknown subcommand '${sub}'`);
  const { values, positionals } = parseArgs({ args: rest, options: SOURCES_OPTIONS, allowPositionals: true });
  if (!values.kb?.trim()) throw new Usage("--kb is required (a knowledge base's name or id)");
  const wanted = sub === "list" ? 0 : 1;
  if (positionals.length !== wanted)
    throw new Usage(wanted ? `${sub} takes one ${sub === "add" ? "URL" : "SOURCE_ID"}` : "list takes no arguments");
  for (const flag of ADD_ONLY)
    if (sub !== "add" && values[flag as keyof typeof values] !== undefined)
      throw new Usage(`--${flag} applies to sources add only`);
  if (values.wait && (sub === "list" || sub === "remove")) throw new Usage(`--wait applies to add and sync only`);
  return { sub, values, arg: positionals[0] ?? "" };
}

/** Plain digits become a number; anything else goes as typed, for the route's schema to refuse in its words. */
const int = (v: string | undefined) => (v === undefined ? undefined : /^\d{1,10}$/.test(v) ? Number(v) : v);

/** The route's words for a bad field, with the flag's name: "--max-pages: 1–100000." */
function flagWords(error: ApiError): string {
  const flag = FLAG_OF[error.options.param ?? ""] ?? error.options.param ?? "argument";
  return `${flag}: ${error.message.replace(/^Invalid field(?: '[^']*')?:\s*/, "")}`;
}

export async function sourcesCommand(
  store: Store,
  argv: string[],
  io: Io,
  context: SourcesContext,
  signal?: AbortSignal,
): Promise<number> {
  if (argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    io.out(USAGE);
    return 0;
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`error: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { sub, values, arg } = parsed;
  const [kbId] = await knowledgeBaseIdsByName(store.db, [values.kb!.trim()]);
  const local = !context.syncs;
  const syncs =
    context.syncs ?? createSourceSyncs({ ...deps(store, context), logger: stderrLogger(io), schedule: false });
  const manage: ManageDeps = { ...deps(store, context), syncs };
  // Here, Ctrl-C cancels this process's sync; a server's sync goes on (only the wait ends).
  const cancel = () => void (syncs as SourceSyncs).close();
  if (local) signal?.addEventListener("abort", cancel, { once: true });
  try {
    const wait = async (syncId: string) => waitForSync(store.db, syncId, io, { progress: local, signal });
    switch (sub) {
      case "list": {
        const list = await listSources(store.db, kbId!);
        if (values.json) io.out(JSON.stringify({ data: list }));
        else if (!list.length) io.out("no sources");
        else for (const s of list) io.out(sourceLine(s));
        return 0;
      }
      case "remove": {
        if (!(await deleteSource(manage, kbId!, arg))) throw new Error(`no source ${arg} in '${values.kb}'`);
        io.out(`removed ${arg}`);
        return 0;
      }
      case "add": {
        const source = await addSource(manage, kbId!, {
          url: arg,
          type: values.type,
          include: values.include,
          exclude: values.exclude,
          max_pages: int(values["max-pages"]),
          max_depth: int(values["max-depth"]),
          refresh_interval_hours: int(values["refresh-hours"]),
          allow_large_deletions: values["allow-large-deletions"],
        });
        const sync = source.last_sync!;
        io.err(
          `added ${source.id} (${source.url}, ${source.type}); sync ${sync.id} started${local ? " here" : " on the server"}`,
        );
        if (!values.wait && !local) {
          io.out(values.json ? JSON.stringify(source) : source.id);
          return 0;
        }
        if (!values.json) io.out(source.id);
        const ended = await wait(sync.id);
        if (values.json) io.out(JSON.stringify((await getSource(store.db, kbId!, source.id)) ?? null));
        return ended ? (values.json ? (ended.status === "completed" ? 0 : 1) : reportSync(ended, io)) : 1;
      }
      default: {
        const sync = await syncSource(manage, kbId!, arg);
        if (!sync) throw new Error(`no source ${arg} in '${values.kb}'`);
        if (!values.wait && !local) {
          io.out(values.json ? JSON.stringify(sync) : `${sync.id} running`);
          return 0;
        }
        const ended = (await wait(sync.id)) ?? sync;
        if (values.json) {
          io.out(JSON.stringify(ended));
          return ended.status === "completed" ? 0 : 1;
        }
        return reportSync(ended, io);
      }
    }
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "invalid_request") throw error;
    io.err(`error: ${flagWords(error)}`);
    return 2;
  } finally {
    signal?.removeEventListener("abort", cancel);
    // This process's runner: its sync has ended (the command waited for it); close ends its timers.
    if (local) await (syncs as SourceSyncs).close();
  }
}

const deps = (store: Store, context: SourcesContext) => ({ db: store.db, now: Date.now, sources: context.sources });

/** The sync's own log lines (a crash, a failed end) on stderr, one line each: this process has no JSON log. */
function stderrLogger(io: Io): Logger {
  const line = (level: string) => (fields: Record<string, unknown>, msg: string) => {
    // A failed statement's message quotes the statement and its parameters: its cause says why.
    const e = fields.error instanceof Error ? fields.error : undefined;
    const why = e && /^Failed query:/.test(e.message) ? (e.cause as Error | undefined)?.message : e?.message;
    io.err(`${level}: ${msg}${why ? `: ${why.split("\n")[0]}` : ""}`);
  };
  return { debug: () => {}, info: () => {}, warn: line("warning"), error: line("error") };
}
