/** Wire schemas of the source routes (validation and OpenAPI), tied to src/contract/sources.ts. */
import { type Static, t } from "elysia";
import * as Wire from "../contract/sources.ts";
import { literals, type Same } from "../http/schema-contract.ts";

const count = t.Integer({ minimum: 0 });
export const SyncPages = t.Object({
  discovered: count,
  fetched: count,
  not_modified: t.Integer({ minimum: 0, description: "Pages answered 304 Not Modified." }),
  created: count,
  updated: count,
  unchanged: count,
  deleted: count,
  skipped: count,
  failed: count,
});

export const SourceSync = t.Object({
  id: t.String({ description: "sync_… identifier" }),
  source_id: t.String(),
  status: literals(Wire.SYNC_STATUSES),
  trigger: literals(Wire.SYNC_TRIGGERS),
  started_at: t.String({ format: "date-time" }),
  finished_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  pages: SyncPages,
  errors: t.Array(t.Object({ url: t.String(), reason: t.String() }), {
    description: "The first 50 URLs not stored, with why.",
  }),
  error: t.Union([t.String(), t.Null()], {
    description: "Why it failed or was cancelled, or what it declined to delete.",
  }),
});

export const Source = t.Object({
  id: t.String({ description: "src_… identifier" }),
  knowledge_base_id: t.String(),
  type: literals(Wire.SOURCE_TYPES),
  url: t.String(),
  include: t.Array(t.String()),
  exclude: t.Array(t.String()),
  max_pages: t.Integer(),
  max_depth: t.Integer(),
  keep_query_strings: t.Boolean(),
  refresh_interval_hours: t.Union([t.Integer(), t.Null()]),
  next_sync_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  allow_large_deletions: t.Boolean(),
  document_count: t.Integer(),
  created_at: t.String({ format: "date-time" }),
  last_sync: t.Union([SourceSync, t.Null()]),
});

export const SourceList = t.Object({ data: t.Array(Source) });

const globs = (what: string, example: string) =>
  t.Optional(
    t.Array(t.String({ minLength: 1, maxLength: 500, examples: [example] }), {
      maxItems: 50,
      examples: [[example]],
      description: `Globs on the URL's path (\`*\` within a segment, \`**\` across): ${what}.`,
      error: `Invalid field: at most 50 globs of 1–500 characters.`,
    }),
  );

export const CreateSource = t.Object({
  url: t.String({
    minLength: 1,
    maxLength: 2048,
    examples: ["https://docs.example.com/guide/"],
    description: "The start URL: its origin and path prefix are the crawl's scope.",
    error: "Invalid field 'url': an absolute http(s) URL of at most 2048 characters.",
  }),
  type: t.Optional(literals(Wire.SOURCE_TYPES, { description: "How pages are found; default `auto`." })),
  include: globs("only pages matching one are stored", "/guide/**"),
  exclude: globs("pages matching one are neither stored nor followed", "/guide/archive/**"),
  max_pages: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: 100_000,
      description: "Default 1000.",
      error: "Invalid field 'max_pages': 1–100000.",
    }),
  ),
  max_depth: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: 100,
      description: "Link hops from the start page or a listed page; default 10.",
      error: "Invalid field 'max_depth': 0–100.",
    }),
  ),
  keep_query_strings: t.Optional(
    t.Boolean({
      description:
        "Keep query strings in page URLs (a site that routes pages by `?page=`); default false: `?ref=nav` is the same page.",
    }),
  ),
  refresh_interval_hours: t.Optional(
    t.Union([t.Integer({ minimum: 1, maximum: 8760 }), t.Null()], {
      description: "Re-sync this often (1–8760); null or absent: only when asked.",
      error: "Invalid field 'refresh_interval_hours': an integer from 1 to 8760, or null.",
    }),
  ),
  allow_large_deletions: t.Optional(
    t.Boolean({ description: "Let a sync delete more than half of the source's documents; default false." }),
  ),
});

const id = (what: string, example: string) => t.String({ description: `${what} identifier`, examples: [example] });
export const SourcesParams = t.Object({ id: id("kb_…", "kb_01jd5x8r7mf6sb1b2k3n4p5q6r") });
export const SourceParams = t.Object({
  id: SourcesParams.properties.id,
  source_id: id("src_…", "src_01jd5x8r7mf6sb1b2k3n4p5q6r"),
});

true satisfies Same<Static<typeof SyncPages>, Wire.SyncPages>;
true satisfies Same<Static<typeof SourceSync>, Wire.SourceSync>;
true satisfies Same<Static<typeof Source>, Wire.Source>;
true satisfies Same<Static<typeof SourceList>, Wire.SourceList>;
