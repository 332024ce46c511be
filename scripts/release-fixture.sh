#!/usr/bin/env bash
# Writes tests/fixtures/releases/<tag>.sql: the data an earlier release of Parley left in its
# PostgreSQL database after a short session (tests/upgrade.test.ts loads it and upgrades it).
#
#   scripts/release-fixture.sh COMMIT [ADMIN_URL]
#
# In a temporary git worktree at COMMIT (removed afterwards) and a fresh database: that release's
# own server and CLI create a key, ingest a tiny corpus, answer a few chats (JSON, streamed, a
# follow-up) and take a feedback rating where the release has it. Then only the data of the
# public tables is dumped (pg_dump 15), minus the tables the triggers on `chunks` rebuild.
# Needs bun, curl, pg_dump and a PostgreSQL reachable at ADMIN_URL (a superuser, trust).
set -euo pipefail
commit=${1:?usage: release-fixture.sh COMMIT [ADMIN_URL]}
admin=${2:-postgres://postgres@127.0.0.1:5432/postgres}
here=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$here" rev-parse --short "$commit")
tag=$(git -C "$here" ls-tree --name-only "$sha" drizzle/ | grep '\.sql$' | tail -1 | xargs basename -s .sql)
db="parley_fixture_$sha"
url="${admin%/*}/$db"
tree=$(mktemp -d /tmp/parley-release-XXXXXX)
scratch=$(mktemp -d /tmp/parley-fixture-XXXXXX)
port=$((38000 + RANDOM % 1000))
server=""

cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  git -C "$here" worktree remove --force "$tree" 2>/dev/null || true
  (cd "$here" && bun scripts/ci-db.ts drop "$admin" "$db" >/dev/null) || true
  rm -rf "$scratch"
}
trap cleanup EXIT

git -C "$here" worktree add --detach "$tree" "$sha" >/dev/null 2>&1
(cd "$tree" && bun install --frozen-lockfile >/dev/null 2>&1 || bun install >/dev/null)
(cd "$here" && bun scripts/ci-db.ts create "$admin" "$db" >/dev/null)

# The corpus: Brindle, a made-up bicycle repair co-op.
cat > "$scratch/kb.jsonl" <<'EOF'
{"url":"https://brindle.example/tubes","title":"Patching an inner tube","content":"# Patching an inner tube\n\nFind the puncture by pumping the tube and holding it under water: bubbles mark the hole. Roughen the rubber with sandpaper, spread vulcanising solution, wait until it turns matt, then press the patch on for a full minute."}
{"url":"https://brindle.example/brakes","title":"Adjusting rim brakes","content":"# Adjusting rim brakes\n\nTurn the barrel adjuster anticlockwise to tighten the cable. The pads should meet the rim squarely, one millimetre below its top edge, with the front of each pad touching slightly first (toe-in) so the brakes do not squeal."}
EOF
mkdir -p "$scratch/notes"
printf -- '---\nurl: https://brindle.example/hours\n---\n# Workshop hours\n\nThe Brindle workshop opens on Tuesday and Thursday evenings from six until nine, and on Saturday mornings. Members borrow the truing stand and the chain whip for free.\n' > "$scratch/notes/hours.md"

export DATABASE_URL="$url" DATA_DIR="$scratch/data" PORT="$port" HOST=127.0.0.1 LOG_LEVEL=warn
cd "$tree"
bun src/main.ts serve > "$scratch/server.log" 2>&1 &
server=$!
for _ in $(seq 1 300); do curl -sf "localhost:$port/healthz" > /dev/null && break; sleep 0.2; done
curl -sf "localhost:$port/healthz" > /dev/null || { cat "$scratch/server.log"; exit 1; }

key=$(bun src/main.ts keys create --name fixture --plan pro 2> /dev/null)
bun src/main.ts ingest "$scratch/kb.jsonl" >&2
bun src/main.ts ingest "$scratch/notes/" >&2

chat() { curl -sf "localhost:$port/v1/chat" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$1"; }
field() { bun -e "console.log((await Bun.stdin.json()).$1)"; }
first=$(chat '{"message":"How do I find the puncture in an inner tube?"}')
conv=$(echo "$first" | field conversation_id)
msg=$(echo "$first" | field id)
chat "{\"message\":\"And how long do I press the patch on?\",\"conversation_id\":\"$conv\"}" > /dev/null
chat '{"message":"When is the workshop open?","stream":true}' > /dev/null
sleep 1 # the streamed reply ends in the background
status=$(curl -s -o /dev/null -w '%{http_code}' -X PUT "localhost:$port/v1/conversations/$conv/messages/$msg/feedback" \
  -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d '{"rating":"up","comment":"Clear steps."}')
echo "feedback: HTTP $status" >&2

# What the upgraded store must still show (tests/upgrade.test.ts): this release's own answers.
get() { curl -sf "localhost:$port$1" -H "Authorization: Bearer $key"; }
get /v1/conversations > "$scratch/list.json"
get "/v1/conversations/$conv" > "$scratch/detail.json"
day=$(date -u +%F)
usage=$(curl -s -w '\n%{http_code}' "localhost:$port/v1/usage?from=$day&to=$day" -H "Authorization: Bearer $key")
echo "${usage%$'\n'*}" > "$scratch/usage.json"
# A release without GET /v1/usage: what this one reports for the day is the limiter's day count
# of admitted requests (rate_limits.day_count) and no chat turns (none were counted then).
[ "${usage##*$'\n'}" = 200 ] || psql -tA "$url" -c "select json_build_object('data', json_build_array(
  json_build_object('totals', json_build_object('requests', coalesce(sum(day_count), 0), 'chat_turns', 0))))
  from rate_limits where day = '$day'" > "$scratch/usage.json"
kill "$server" && wait "$server" 2>/dev/null || true
server=""

# Tables kept by the triggers on chunks (drizzle/0006, 0024): rebuilt when the chunks are loaded.
out="$here/tests/fixtures/releases/$tag.sql"
mkdir -p "$(dirname "$out")"
{
  echo "-- Written by Parley at commit $(git -C "$here" rev-parse "$sha") (newest migration $tag)"
  echo "-- with scripts/release-fixture.sh: that release's own server and CLI (keys create, ingest,"
  echo "-- chats, feedback where it has it) on a fresh PostgreSQL 15 database, then"
  echo "-- pg_dump --data-only --inserts --on-conflict-do-nothing --no-owner --schema=public, without the"
  echo "-- data of the tables the triggers on chunks rebuild."
  echo "-- Test key (secret of the key named fixture): $key"
  echo "-- Conversation with a follow-up: $conv; feedback on its first reply: HTTP $status"
  pg_dump --data-only --inserts --on-conflict-do-nothing --no-owner --schema=public \
    --exclude-table-data=public.knowledge_terms --exclude-table-data=public.knowledge_stats \
    --exclude-table-data=public.knowledge_base_terms --exclude-table-data=public.knowledge_base_stats "$url"
} > "$out"
ls -l "$out" >&2

# The expectations, one entry per fixture, in tests/fixtures/releases/expectations.json.
cd "$here"
TAG="$tag" COMMIT="$(git rev-parse "$sha")" KEY="$key" CONV="$conv" DAY="$day" S="$scratch" bun -e '
const e = process.env;
const read = (f) => Bun.file(`${e.S}/${f}`).json();
const path = "tests/fixtures/releases/expectations.json";
const all = (await Bun.file(path).exists()) ? await Bun.file(path).json() : {};
const detail = await read("detail.json");
const usage = await read("usage.json");
all[e.TAG] = {
  commit: e.COMMIT,
  key: e.KEY,
  conversations: (await read("list.json")).data.map((c) => c.id),
  conversation: {
    id: e.CONV,
    title: detail.title,
    messages: detail.messages.map((m) => ({ id: m.id, role: m.role, content: m.content, sources: m.sources, feedback: m.feedback ? { rating: m.feedback.rating, comment: m.feedback.comment } : null })),
  },
  ask: { question: "Where should rim brake pads meet the rim?", cites: "https://brindle.example/brakes", title: "Adjusting rim brakes" },
  usage: usage && { date: e.DAY, requests: usage.data[0].totals.requests, chat_turns: usage.data[0].totals.chat_turns },
};
await Bun.write(path, `${JSON.stringify(Object.fromEntries(Object.entries(all).sort()), null, 2)}\n`);
'
