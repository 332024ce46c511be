/** Editing a key: plan, limits and knowledge bases, and a public key's widget settings (PATCH /v1/keys/:id). */
import { useState } from "preact/hooks";
import type { ApiKey } from "../../src/contract/keys.ts";
import { api } from "../api.ts";
import { FormAlert, type FormError, fieldError, formError } from "../field-error.tsx";
import { PUBLIC_FIELDS, PublicFields, publicBody } from "./key-public-fields.tsx";

/** The wire type, from the contract (type-only: nothing of src/ reaches the bundle). */
export type Key = ApiKey;
export const PLANS = ["free", "pro", "enterprise"];
/** The fields that show their own error (any other's goes atop the form, so none is ever lost). */
const FIELDS = ["rpm", "rpd", ...PUBLIC_FIELDS];

export function EditKey({
  k,
  kbs,
  onDone,
}: {
  k: Key;
  kbs: { id: string; name: string }[];
  /** Called once saved; a failure stays on the form, beside its field when the server named one. */
  onDone: () => void;
}) {
  const [error, setError] = useState<FormError | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const body: Record<string, unknown> = { plan: f.get("plan"), knowledge_base_ids: f.getAll("kb") };
    for (const n of ["rpm", "rpd"]) body[n] = f.get(n) ? Number(f.get(n)) : null;
    if (k.role === "public") Object.assign(body, publicBody(f));
    try {
      setError(null);
      await api("PATCH", `/v1/keys/${k.id}`, body);
      onDone();
    } catch (err) {
      setError(formError(err, FIELDS));
    }
  };
  const rpm = fieldError(error, "rpm", "edit");
  const rpd = fieldError(error, "rpd", "edit");
  return (
    <form class="grid edit" onSubmit={save} aria-label={`Edit ${k.name}`}>
      <h3>Edit {k.name}</h3>
      <label>
        Plan{" "}
        <select name="plan" defaultValue={k.plan}>
          {PLANS.map((p) => (
            <option value={p}>{p}</option>
          ))}
        </select>
      </label>
      <div class="field">
        <label>
          Requests per minute{" "}
          <input name="rpm" type="number" min={1} defaultValue={k.rpm === null ? "" : String(k.rpm)} {...rpm.props} />
        </label>
        {rpm.message}
      </div>
      <div class="field">
        <label>
          Requests per day{" "}
          <input name="rpd" type="number" min={1} defaultValue={k.rpd === null ? "" : String(k.rpd)} {...rpd.props} />
        </label>
        {rpd.message}
      </div>
      {k.widget && <PublicFields settings={k.widget} error={error} scope="edit" />}
      <fieldset>
        <legend>Knowledge bases</legend>
        {kbs.map((b) => (
          <label class="check">
            <input type="checkbox" name="kb" value={b.id} defaultChecked={k.knowledge_base_ids.includes(b.id)} />{" "}
            {b.name}
          </label>
        ))}
      </fieldset>
      <button type="submit">Save</button>
      <FormAlert error={error} />
    </form>
  );
}
