/**
 * The new-key form (POST /v1/keys). Choosing the public role (a website widget's `pk_…` key) shows
 * its own fields: allowed origins and each visitor's limits. A 400 naming a field is shown beside it.
 */
import { useState } from "preact/hooks";
import type { CreatedApiKey, KeyRole } from "../../src/contract/keys.ts";
import { api } from "../api.ts";
import { FormAlert, type FormError, fieldError, formError } from "../field-error.tsx";
import { PUBLIC_FIELDS, PublicFields, publicBody } from "./key-public-fields.tsx";
import { PLANS } from "./keys-edit.tsx";

const ROLES: [KeyRole, string][] = [
  ["chat", "chat"],
  ["admin", "admin"],
  ["public", "Public (website widget)"],
];
/** The fields that show their own error (any other's goes atop the form, so none is ever lost). */
const FIELDS = ["name", "rpm", "rpd", "expires_at", ...PUBLIC_FIELDS];

export function NewKey({
  kbs,
  onCreated,
}: {
  kbs: { id: string; name: string }[];
  onCreated: (key: CreatedApiKey) => void | Promise<void>;
}) {
  const [role, setRole] = useState<KeyRole>("chat");
  const [error, setError] = useState<FormError | null>(null);
  const [busy, setBusy] = useState(false);
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const body: Record<string, unknown> = { name: f.get("name"), plan: f.get("plan"), role };
    for (const n of ["rpm", "rpd"]) if (f.get(n)) body[n] = Number(f.get(n));
    const kbIds = f.getAll("kb");
    if (kbIds.length) body.knowledge_base_ids = kbIds;
    if (f.get("expires")) body.expires_at = new Date(String(f.get("expires"))).toISOString();
    if (role === "public") Object.assign(body, publicBody(f));
    try {
      setError(null);
      setBusy(true);
      const key = await api<CreatedApiKey>("POST", "/v1/keys", body);
      form.reset();
      setRole("chat"); // as the reset form shows
      await onCreated(key);
    } catch (err) {
      setError(formError(err, FIELDS));
    } finally {
      setBusy(false);
    }
  };
  const err = (field: string) => fieldError(error, field, "new");
  const name = err("name");
  const rpm = err("rpm");
  const rpd = err("rpd");
  const expires = err("expires_at");
  return (
    <form class="grid" onSubmit={create} aria-labelledby="new-key-heading">
      <div class="field">
        <label>
          Name <input name="name" required maxLength={100} {...name.props} />
        </label>
        {name.message}
      </div>
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
        <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as KeyRole)}>
          {ROLES.map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </select>
      </label>
      <div class="field">
        <label>
          Requests per minute <input name="rpm" type="number" min={1} {...rpm.props} />
        </label>
        {rpm.message}
      </div>
      <div class="field">
        <label>
          Requests per day <input name="rpd" type="number" min={1} {...rpd.props} />
        </label>
        {rpd.message}
      </div>
      <div class="field">
        <label>
          Expires <input name="expires" type="datetime-local" {...expires.props} />
        </label>
        {expires.message}
      </div>
      {role === "public" && <PublicFields error={error} scope="new" />}
      <fieldset>
        <legend>Knowledge bases</legend>
        {kbs.map((k) => (
          <label class="check">
            <input type="checkbox" name="kb" value={k.id} /> {k.name}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy}>
        Create key
      </button>
      <FormAlert error={error} />
    </form>
  );
}
