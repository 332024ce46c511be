/**
 * Keys: create (the secret shown once, with a copy button; a public key's embed snippet and
 * preview instead), list, revoke, change plan, limits and knowledge bases.
 */
import { useEffect, useState } from "preact/hooks";
import type { CreatedApiKey } from "../../src/contract/keys.ts";
import { api } from "../api.ts";
import { Cell, when } from "../table.tsx";
import { KeyWidget } from "./key-widget.tsx";
import { EditKey, type Key } from "./keys-edit.tsx";
import { NewKey } from "./keys-new.tsx";

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
  /** The public key whose widget (snippet, preview) is shown. */
  const [embedding, setEmbedding] = useState<string | null>(null);
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
  const created = async (key: CreatedApiKey) => {
    setCopied(false);
    // A public key's secret is no secret (it sits in web pages, and the list shows it whole):
    // what its creator needs next is the snippet, not the "copy it now" warning.
    if (key.role === "public") {
      setSecret(null);
      setEditing(null);
      setEmbedding(key.id);
    } else setSecret(key.secret);
    await load();
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
        <NewKey kbs={kbs} onCreated={created} />
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
                    {/* A public key's "prefix" is its whole pk_… secret: clipped here, whole in its Widget panel. */}
                    <code {...(k.role === "public" ? { class: "clip key", title: k.prefix } : {})}>{k.prefix}</code>
                  </Cell>
                  <Cell label="Role">{k.role}</Cell>
                  <Cell label="Plan">{k.plan}</Cell>
                  <Cell label="Limits">{limits(k)}</Cell>
                  <Cell label="Last use">{when(k.last_used_at)}</Cell>
                  <Cell label="Expires">{k.revoked_at ? `revoked ${when(k.revoked_at)}` : when(k.expires_at)}</Cell>
                  <Cell label="Actions" class="actions">
                    {!k.revoked_at && (
                      <>
                        {k.role === "public" && (
                          <>
                            <button
                              type="button"
                              aria-expanded={embedding === k.id}
                              onClick={() => setEmbedding(embedding === k.id ? null : k.id)}
                            >
                              Widget<span class="visually-hidden"> {k.name}</span>
                            </button>{" "}
                          </>
                        )}
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
            onDone={async () => {
              setEditing(null);
              await load();
            }}
          />
        )}
        {embedding && keys.some((k) => k.id === embedding && !k.revoked_at) && (
          <KeyWidget key={embedding} k={keys.find((k) => k.id === embedding)!} onClose={() => setEmbedding(null)} />
        )}
      </section>
    </div>
  );
}
