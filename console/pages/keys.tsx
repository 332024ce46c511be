/** Keys: create (the secret shown once, with a copy button), list, revoke, change plan, limits and knowledge bases. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { Cell, when } from "../table.tsx";
import { EditKey, type Key, PLANS } from "./keys-edit.tsx";

/** The plans' own limits (docs/api.md), shown when a key has none of its own (`null`). */
const PLAN_LIMITS: Record<string, [number, number]> = { free: [20, 1000], pro: [100, 10000] };
const limits = (k: Key) => {
  const [rpm, rpd] = PLAN_LIMITS[k.plan] ?? [];
  return `${k.rpm ?? rpm ?? "?"}/min, ${k.rpd ?? rpd ?? "?"}/day${k.rpm === null && k.rpd === null ? " (plan)" : ""}`;
};

export function Keys() {
  const [keys, setKeys] = useState<Key[]>([]);
  const [kbs, setKbs] = useState<{ id: string; name: string }[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState("");
  const load = () =>
    api("GET", "/v1/keys?limit=100").then(
      (r) => setKeys(r.data),
      (e) => setError(e.message),
    );
  useEffect(() => {
    void load();
    api("GET", "/v1/knowledge_bases?limit=100").then(
      (r) => setKbs(r.data),
      () => {},
    );
  }, []);
  const create = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const body: Record<string, unknown> = { name: f.get("name"), plan: f.get("plan"), role: f.get("role") };
    for (const n of ["rpm", "rpd"]) if (f.get(n)) body[n] = Number(f.get(n));
    const kbIds = f.getAll("kb");
    if (kbIds.length) body.knowledge_base_ids = kbIds;
    if (f.get("expires")) body.expires_at = new Date(String(f.get("expires"))).toISOString();
    try {
      setError("");
      const key = await api("POST", "/v1/keys", body);
      setSecret(key.secret);
      setCopied(false);
      (e.currentTarget as HTMLFormElement | null)?.reset();
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const revoke = async (k: Key) => {
    if (!confirm(`Revoke the key "${k.name}"? Requests with it will be refused.`)) return;
    await api("POST", `/v1/keys/${k.id}/revoke`).catch((e) => setError(e.message));
    await load();
  };
  return (
    <div class="stack">
      <h1>Keys</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {secret && (
        <div class="secret" role="status">
          <p>Copy this key now: it is shown only once.</p>
          <code id="new-secret">{secret}</code>{" "}
          <button
            type="button"
            onClick={() =>
              navigator.clipboard.writeText(secret).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            {copied ? "Copied" : "Copy"}
          </button>{" "}
          <button type="button" class="link" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      <section aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">New key</h2>
        <form class="grid" onSubmit={create}>
          <label>
            Name <input name="name" required maxLength={100} />
          </label>
          <label>
            Plan{" "}
            <select name="plan">
              {PLANS.map((p) => (
                <option value={p}>{p}</option>
              ))}
            </select>
          </label>
          <label>
            Role{" "}
            <select name="role">
              <option value="chat">chat</option>
              <option value="admin">admin</option>
            </select>
          </label>
          <label>
            Requests per minute <input name="rpm" type="number" min={1} />
          </label>
          <label>
            Requests per day <input name="rpd" type="number" min={1} />
          </label>
          <label>
            Expires <input name="expires" type="datetime-local" />
          </label>
          <fieldset>
            <legend>Knowledge bases</legend>
            {kbs.map((k) => (
              <label class="check">
                <input type="checkbox" name="kb" value={k.id} /> {k.name}
              </label>
            ))}
          </fieldset>
          <button type="submit">Create key</button>
        </form>
      </section>
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">All keys</h2>
        <div class="table-wrap">
          <table class="reflow">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Role</th>
                <th scope="col">Plan</th>
                <th scope="col">Limits</th>
                <th scope="col">Last use</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} class={k.revoked_at ? "revoked" : ""}>
                  <Cell label="Name">
                    <span class="clip" title={k.name}>
                      {k.name}
                    </span>
                  </Cell>
                  <Cell label="Prefix">
                    <code>{k.prefix}</code>
                  </Cell>
                  <Cell label="Role">{k.role}</Cell>
                  <Cell label="Plan">{k.plan}</Cell>
                  <Cell label="Limits">{limits(k)}</Cell>
                  <Cell label="Last use">{when(k.last_used_at)}</Cell>
                  <Cell label="Expires">{k.revoked_at ? `revoked ${when(k.revoked_at)}` : when(k.expires_at)}</Cell>
                  <Cell label="Actions" class="actions">
                    {!k.revoked_at && (
                      <>
                        <button type="button" onClick={() => setEditing(editing === k.id ? null : k.id)}>
                          Edit<span class="visually-hidden"> {k.name}</span>
                        </button>{" "}
                        <button type="button" class="danger" onClick={() => revoke(k)}>
                          Revoke<span class="visually-hidden"> {k.name}</span>
                        </button>
                      </>
                    )}
                  </Cell>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {editing && (
          <EditKey
            k={keys.find((k) => k.id === editing)!}
            kbs={kbs}
            onDone={async (msg) => {
              setError(msg ?? "");
              if (!msg) setEditing(null);
              await load();
            }}
          />
        )}
      </section>
    </div>
  );
}
