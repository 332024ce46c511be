/**
 * `keys create|list|revoke|update`. `create` prints the secret, once, as the only line on
 * stdout (its id and the reminder go to stderr), so `KEY=$(parley keys create …)` captures it;
 * a failure prints nothing on stdout and exits non-zero.
 */
import { parseArgs } from "node:util";
import { checkLimit, createKey, listKeys, revokeKey, updateKey } from "../../auth/index.ts";
import { PLANS, type Plan } from "../../contract/plans.ts";
import type { Store } from "../../db/client.ts";
import { parseDateTime } from "../../http/date-time.ts";
import { knowledgeBaseIdsByName } from "../../knowledge/index.ts";
import { KEYS_OPTIONS } from "./args.ts";
import { consoleIo, type Io } from "./io.ts";

const USAGE = `usage:
  keys create --name NAME --plan free|pro|enterprise [--rpm N] [--rpd N] [--tpd N] [--admin | --role chat|admin] [--kb NAME]... [--expires DATE]
  keys list
  keys revoke KEY_ID
  keys update KEY_ID [--plan P] [--rpm N|default] [--rpd N|default] [--tpd N|none] [--role chat|admin] [--kb NAME]...
  (--kb: a knowledge base the key may use, by name or id; default: 'default'. --admin: may manage everything.)`;

/** A date alone (midnight UTC) or a full RFC 3339 date-time; a day the month lacks is refused, not rolled over. */
function expiry(v: string | undefined): Date | undefined {
  if (v === undefined) return undefined;
  const d = parseDateTime(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (!d) throw new Error("--expires must be a date or an RFC 3339 date-time, e.g. 2027-01-31 or 2027-01-31T12:00:00Z");
  return d;
}

function limit(v: string | undefined, name: string): number | null | undefined {
  if (v === undefined) return undefined;
  // `none` for the token budget (it has no plan default), `default` for the plan's limits.
  if (v === (name === "tpd" ? "none" : "default")) return null;
  // Plain digits only: Number() would also take "0x10", "1e3" or " 5 ".
  const n = /^\d{1,10}$/.test(v) ? Number(v) : NaN;
  try {
    checkLimit(`--${name}`, n);
  } catch (error) {
    throw new Error(`${(error as Error).message} (or '${name === "tpd" ? "none" : "default"}')`);
  }
  return n;
}

function plan(v: string | undefined): Plan | undefined {
  if (v === undefined) return undefined;
  if (!PLANS.includes(v as Plan)) throw new Error(`--plan must be one of ${PLANS.join(", ")}`);
  return v as Plan;
}

export async function keysCommand(store: Store, argv: string[], io: Io = consoleIo): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: KEYS_OPTIONS,
  });
  const kbs = values.kb ? await knowledgeBaseIdsByName(store.db, values.kb) : undefined;
  if (values.role !== undefined && values.role !== "chat" && values.role !== "admin")
    throw new Error("--role must be chat or admin");
  switch (sub) {
    case "create": {
      if (!values.name?.trim()) throw new Error(`--name is required\n${USAGE}`);
      if (values.admin && values.role === "chat") throw new Error("--admin and --role chat contradict each other");
      // `--role` is update's flag; create takes it too (it used to accept it and make a chat key).
      const asAdmin = values.admin || values.role === "admin";
      const p = plan(values.plan);
      if (!p) throw new Error(`--plan is required\n${USAGE}`);
      const key = await createKey(store.db, {
        name: values.name.trim(),
        plan: p,
        rpm: limit(values.rpm, "rpm"),
        rpd: limit(values.rpd, "rpd"),
        tpd: limit(values.tpd, "tpd"),
        role: asAdmin ? "admin" : "chat",
        knowledgeBaseIds: kbs,
        expiresAt: expiry(values.expires),
      });
      io.err(`created ${key.id} (${p}${asAdmin ? ", admin" : ""}); the secret is shown once, store it now:`);
      io.out(key.secret);
      return 0;
    }
    case "list": {
      const rows = await listKeys(store.db);
      const now = Date.now();
      if (rows.length === 0) io.out("no keys");
      for (const k of rows) {
        const limits = `${k.rpm ?? "plan"}/min ${k.rpd ?? "plan"}/day${k.tpd != null ? ` ${k.tpd} tok/day` : ""}`;
        const state = k.revokedAt
          ? `revoked ${k.revokedAt.toISOString()}`
          : k.expiresAt && k.expiresAt.getTime() <= now
            ? `expired ${k.expiresAt.toISOString()}`
            : "active";
        io.out(
          `${k.id}  ${k.prefix}…  ${k.role.padEnd(5)} ${k.plan.padEnd(10)} ${limits.padEnd(22)} ${state.padEnd(32)} ${k.name}`,
        );
      }
      return 0;
    }
    case "revoke": {
      const id = positionals[0];
      if (!id) throw new Error(`a key id is required\n${USAGE}`);
      if (!(await revokeKey(store.db, id))) throw new Error(`no active key ${id}`);
      io.out(`revoked ${id}`);
      return 0;
    }
    case "update": {
      const id = positionals[0];
      if (!id) throw new Error(`a key id is required\n${USAGE}`);
      const ok = await updateKey(store.db, id, {
        plan: plan(values.plan),
        rpm: limit(values.rpm, "rpm"),
        rpd: limit(values.rpd, "rpd"),
        tpd: limit(values.tpd, "tpd"),
        role: values.role as "chat" | "admin" | undefined,
        knowledgeBaseIds: kbs,
      });
      if (!ok) throw new Error(`no active key ${id}`);
      io.out(`updated ${id}`);
      return 0;
    }
    default:
      io.err(USAGE);
      return 2;
  }
}
