/**
 * The floor: a bare Bun.serve doing the same work as an authenticated
 * `GET /v1/conversations?limit=20` with postgres.js directly — key lookup by SHA-256 and the
 * limiter's admission (one statement, as Parley's), the list query — and answering the same JSON and headers. No framework,
 * no ORM, no validation layer: what the request costs at the bottom of our own stack.
 */
import postgres from "postgres";

const sql = postgres(process.env.DATABASE_URL!, { max: 10, onnotice: () => {} });
const hex = (buf: ArrayBuffer) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
// The cursor is signed as src/conversations/cursor.ts signs it, with the same shared key.
const fresh = b64url(crypto.getRandomValues(new Uint8Array(32)));
await sql`insert into instance_secrets (name, value) values ('cursor_hmac', ${fresh}) on conflict do nothing`;
const [{ value }] = (await sql`select value from instance_secrets where name = 'cursor_hmac'`) as unknown as [
  { value: string },
];
const raw = Uint8Array.from(atob(value.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const hmac = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
async function cursor(t: number, id: string): Promise<string> {
  const payload = new TextEncoder().encode(JSON.stringify({ v: 1, t, id }));
  const tag = new Uint8Array(await crypto.subtle.sign("HMAC", hmac, payload)).slice(0, 16);
  return b64url(new Uint8Array([...payload, ...tag]));
}

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const secret = /^Bearer (\S+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
    if (!secret) return new Response("{}", { status: 401 });
    const hash = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)));
    const now = Date.now();
    const day = new Date(now).toISOString().slice(0, 10);
    // The key lookup and the limiter's admission in one statement, as src/ratelimit/admit.ts builds
    // it (1 s buckets: the keys' limits are high; the bench's keys have their own limits).
    const cut = now - 60_000;
    const [rl] = await sql`
      with k as (select id, rpm, rpd from api_keys where hash = ${hash} and revoked_at is null)
      insert into rate_limits as r (key_id, hits, counts, day, day_count)
      select id, array[${now}::bigint - ${now}::bigint % 1000 + 999], array[1], ${day}::date, 1 from k
      on conflict (key_id) do update set
        hits = array(select b from unnest(r.hits, r.counts) as u(b, c) where b > ${cut} and b <> excluded.hits[1] order by b) || excluded.hits[1],
        counts = array(select coalesce(c, 1) from unnest(r.hits, r.counts) as u(b, c) where b > ${cut} and b <> excluded.hits[1] order by b)
          || (1 + coalesce((select sum(coalesce(c, 1)) from unnest(r.hits, r.counts) as u(b, c) where b = excluded.hits[1]), 0))::integer,
        day = greatest(r.day, ${day}::date),
        day_count = case when r.day < ${day}::date then 1 else r.day_count + 1 end
      where (select coalesce(sum(coalesce(c, 1)), 0) from unnest(r.hits, r.counts) as u(b, c) where b > ${cut}) < (select rpm from k)
        and (r.day < ${day}::date or r.day_count < (select rpd from k))
      returning key_id as id, hits, counts, day, day_count, (select rpm from k) as rpm, (select rpd from k) as rpd`;
    if (!rl) return new Response("{}", { status: 401 });
    const key = rl;
    const limit = Number(new URL(req.url).searchParams.get("limit") ?? 20);
    const rows = await sql`select id, title, created_at, updated_at from conversations where key_id = ${key.id}
      order by created_at desc, id desc limit ${limit + 1}`;
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const body = {
      data: page.map((c) => ({
        id: c.id,
        created_at: c.created_at.toISOString(),
        updated_at: c.updated_at.toISOString(),
        title: c.title,
      })),
      pagination: {
        has_more: rows.length > limit,
        next_cursor: rows.length > limit && last ? await cursor(last.created_at.getTime(), last.id) : null,
      },
    };
    return Response.json(body, {
      headers: {
        "x-request-id": crypto.randomUUID(),
        "ratelimit-policy": `"minute";q=${key.rpm};w=60, "day";q=${key.rpd};w=86400`,
        ratelimit: `"minute";r=${key.rpm - rl.counts.reduce((a: number, b: number) => a + b, 0)};t=60, "day";r=${key.rpd - rl.day_count};t=1`,
      },
    });
  },
});
console.log(`ready ${server.port}`);
process.on("SIGTERM", async () => {
  server.stop(true);
  await sql.end({ timeout: 2 });
  process.exit(0);
});
