/**
 * A public key's widget settings as form fields (allowed origins, each visitor's limits, proof of
 * work), shared by the new-key and edit forms, and the body they make for POST or PATCH /v1/keys.
 */
import type { PublicKeySettings } from "../../src/contract/keys.ts";
import { type FormError, fieldError } from "../field-error.tsx";

/** The fields here that show their own error: a 400 naming one of them is shown beside it. */
export const PUBLIC_FIELDS = ["allowed_origins", "visitor_rpm", "visitor_rpd"] as const;

/** The server's defaults for each visitor (docs/widget.md), prefilled so what is created is what is seen. */
const VISITOR_DEFAULTS = { visitor_rpm: 10, visitor_rpd: 200 };

/** The widget fields of the form as a request body: origins one per line (blank lines dropped), limits as numbers. */
export function publicBody(f: FormData): Record<string, unknown> {
  const origins = String(f.get("allowed_origins") ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const body: Record<string, unknown> = {
    // Sent even when empty: the server then says which field is missing, next to it.
    allowed_origins: origins,
    require_proof_of_work: f.get("require_proof_of_work") === "on",
  };
  for (const n of ["visitor_rpm", "visitor_rpd"]) if (String(f.get(n) ?? "").trim()) body[n] = Number(f.get(n));
  return body;
}

export function PublicFields({
  settings,
  error,
  scope,
}: {
  /** The key's current settings (editing), or none (a new key: the console's own origin and the defaults). */
  settings?: PublicKeySettings;
  error: FormError | null;
  scope: string;
}) {
  const origins = fieldError(error, "allowed_origins", scope);
  const rpm = fieldError(error, "visitor_rpm", scope);
  const rpd = fieldError(error, "visitor_rpd", scope);
  const hint = `${scope}-origins-hint`;
  return (
    <fieldset class="grid full">
      <legend>Website widget</legend>
      <div class="field wide">
        <label for={`${scope}-origins`}>Allowed origins (one per line)</label>
        <textarea
          id={`${scope}-origins`}
          name="allowed_origins"
          rows={3}
          required
          spellcheck={false}
          // The console's own origin by default, so the key can be previewed here at once.
          defaultValue={(settings?.allowed_origins ?? [location.origin]).join("\n")}
          {...origins.props}
          aria-describedby={[hint, origins.props["aria-describedby"]].filter(Boolean).join(" ")}
        />
        <span class="hint" id={hint}>
          Exact origins such as https://docs.example.com: no path, no wildcard.
        </span>
        {origins.message}
      </div>
      <div class="field">
        <label>
          Visitor requests per minute
          <input
            name="visitor_rpm"
            type="number"
            min={1}
            defaultValue={String(settings?.visitor_rpm ?? VISITOR_DEFAULTS.visitor_rpm)}
            {...rpm.props}
          />
        </label>
        {rpm.message}
      </div>
      <div class="field">
        <label>
          Visitor requests per day
          <input
            name="visitor_rpd"
            type="number"
            min={1}
            defaultValue={String(settings?.visitor_rpd ?? VISITOR_DEFAULTS.visitor_rpd)}
            {...rpd.props}
          />
        </label>
        {rpd.message}
      </div>
      <label class="check">
        <input type="checkbox" name="require_proof_of_work" defaultChecked={settings?.require_proof_of_work ?? false} />{" "}
        Require proof of work
      </label>
    </fieldset>
  );
}
