#!/usr/bin/env bun
/**
 * The one command-line entry: `serve`, `migrate`, `keys …`, `ingest …`.
 * The environment is validated before anything else; a bad value stops here.
 */
import { ingestCommand } from "./cli/ingest.ts";
import { keysCommand } from "./cli/keys.ts";
import { openStoreFromEnv } from "./cli/store.ts";
import { loadEnv } from "./config/env.ts";
import { migrate } from "./db/migrate.ts";
import { serve } from "./server.ts";

const USAGE = `usage: parley <command>
  serve                 migrate, then serve the API (default store: PGlite in DATA_DIR)
  migrate               apply database migrations
  keys create|list|revoke|update ...
  ingest PATH...        load knowledge-base documents (.jsonl, .md, .txt)
  healthcheck           exit 0 when the server on PORT answers /healthz (for containers)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (!["serve", "migrate", "keys", "ingest", "healthcheck"].includes(command)) {
    console.error(`unknown command '${command}'\n${USAGE}`);
    return 2;
  }
  const env = loadEnv(process.env);
  if (command === "healthcheck") {
    const res = await fetch(`http://127.0.0.1:${env.PORT}/healthz`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
    return res?.ok ? 0 : 1;
  }
  if (command === "serve") {
    await serve(env);
    return -1; // keeps running
  }
  const store = await openStoreFromEnv(env);
  try {
    await migrate(store);
    if (command === "migrate") {
      console.log(`migrations applied (${store.describe})`);
      return 0;
    }
    return command === "keys" ? await keysCommand(store, rest) : await ingestCommand(store, rest);
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: Error) => {
    console.error(`error: ${error.message}`);
    process.exit(1);
  },
);
