/**
 * The store commands' arguments: each command's flags (the one definition its parser and the
 * admin-socket forwarding both read), and which of its arguments are paths. A command handed to
 * a running server (admin.ts) has its paths made absolute, since the server reads the files from
 * its own working directory; every flag and its value go through exactly as typed. Bun/Node-only.
 */
import { isAbsolute, resolve } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

export const KEYS_OPTIONS = {
  name: { type: "string" },
  plan: { type: "string" },
  rpm: { type: "string" },
  rpd: { type: "string" },
  tpd: { type: "string" },
  admin: { type: "boolean" },
  role: { type: "string" },
  kb: { type: "string", multiple: true },
  expires: { type: "string" },
} as const satisfies Options;

export const INGEST_OPTIONS = {
  kb: { type: "string" },
  "base-url": { type: "string" },
  "url-style": { type: "string" },
} as const satisfies Options;

export const SOURCES_OPTIONS = {
  kb: { type: "string" },
  type: { type: "string" },
  include: { type: "string", multiple: true },
  exclude: { type: "string", multiple: true },
  "max-pages": { type: "string" },
  "max-depth": { type: "string" },
  "refresh-hours": { type: "string" },
  "allow-large-deletions": { type: "boolean" },
  wait: { type: "boolean" },
  json: { type: "boolean" },
} as const satisfies Options;

/** The flags of the store commands whose positional arguments are paths (`keys` takes ids). */
const PATH_COMMANDS: Record<string, Options> = { ingest: INGEST_OPTIONS };

/**
 * `argv` (`[command, ...args]`) as the server must receive it: the command's path arguments
 * resolved against `cwd`, the rest untouched and in place. Arguments that its parser refuses
 * (an unknown flag, a missing value) go as they are: the server's run of the command refuses
 * them with the same message it would give here, before reading any path.
 */
export function forServer(argv: string[], cwd = process.cwd()): string[] {
  const [command, ...args] = argv;
  const options = command === undefined ? undefined : PATH_COMMANDS[command];
  if (!options) return argv;
  let tokens: NonNullable<ReturnType<typeof parseArgs>["tokens"]>;
  try {
    ({ tokens } = parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true }));
  } catch {
    return argv;
  }
  const sent = [...args];
  // "" stays "": here it names no file (an error), resolved it would name the whole folder.
  for (const t of tokens)
    if (t.kind === "positional" && t.value !== "" && !isAbsolute(t.value)) sent[t.index] = resolve(cwd, t.value);
  return [command!, ...sent];
}
