/** `bun scripts/ci-db.ts create|drop ADMIN_URL NAME`: a throwaway database for one test run (no psql needed). */
import postgres from "postgres";

const [action, url, name] = process.argv.slice(2);
if (!action || !url || !name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: ci-db.ts create|drop ADMIN_URL NAME");
  process.exit(2);
}
const sql = postgres(url, { max: 1, onnotice: () => {} });
try {
  if (action === "create") await sql.unsafe(`create database ${name}`);
  else await sql.unsafe(`drop database if exists ${name} with (force)`);
  console.log(`${action === "create" ? "created" : "dropped"} database ${name}`);
} finally {
  await sql.end();
}
