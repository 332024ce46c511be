// scratch: ingest profile
import postgres from "postgres";
import { openPglite, openPostgres } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { ingestDocuments } from "../src/knowledge/service.ts";
import { syntheticCorpus } from "./retrieval.ts";

const n = Number(process.env.N ?? 20000);
const docs = syntheticCorpus(n);
const kind = process.env.KIND ?? "postgres";
let store;
let admin;
const name = `i23_prof_${process.pid}`;
if (kind === "postgres") {
  admin = postgres("postgres://postgres@127.0.0.1:5432/postgres", { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  store = openPostgres(`postgres://postgres@127.0.0.1:5432/${name}`, { max: 2 });
} else store = await openPglite();
await migrate(store);
const t0 = performance.now();
await ingestDocuments(store.db, docs);
const s = (performance.now() - t0) / 1000;
console.log(kind, n, "passages/s", Math.round(n / s), "s", s.toFixed(1));
await store.close();
if (admin) { await admin.unsafe(`drop database ${name} with (force)`); await admin.end(); }
