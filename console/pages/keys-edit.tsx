/** Editing a key: plan, limits and knowledge bases (PATCH /v1/keys/:id). */
import { api } from "../api.ts";

export interface Key {
  id: string;
  name: string;
  prefix: string;
  role: string;
  plan: string;
  rpm: number | null;
  rpd: number | null;
  knowledge_base_ids: string[];
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}
export const PLANS = ["free", "pro", "enterprise"];

export function EditKey({
  k,
  kbs,
  onDone,
}: {
  k: Key;
  kbs: { id: string; name: string }[];
  onDone: (error?: string) => void;
}) {
  const save = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const body: Record<string, unknown> = { plan: f.get("plan"), knowledge_base_ids: f.getAll("kb") };
    for (const n of ["rpm", "rpd"]) body[n] = f.get(n) ? Number(f.get(n)) : null;
    try {
      await api("PATCH", `/v1/keys/${k.id}`, body);
      onDone();
    } catch (err) {
      onDone((err as Error).message);
    }
  };
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
      <label>
        Requests per minute{" "}
        <input name="rpm" type="number" min={1} defaultValue={k.rpm === null ? "" : String(k.rpm)} />
      </label>
      <label>
        Requests per day <input name="rpd" type="number" min={1} defaultValue={k.rpd === null ? "" : String(k.rpd)} />
      </label>
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
    </form>
  );
}
