/**
 * A public key's widget settings as form fields (allowed origins, each visitor's limits, proof of
 * work), shared by the new-key and edit forms, and the body they make for POST or PATCH /v1/keys.
 */
import type { PublicKeySettings } from "../../src/contract/keys.ts";
import { type FormError, fieldError } from "../field-error.tsx";

/**
 * The limits, each visitor's and each client IP's, with the server's defaults (docs/api.md),
 * prefilled so what is created is what is seen.
 */
const LIMITS = [
  { name: "visitor_rpm", label: "Visitor requests per minute", fallback: 10 },
  { name: "visitor_rpd", label: "Visitor requests per day", fallback: 200 },
  { name: "ip_rpm", label: "Requests per minute per IP address", fallback: 30 },
  { name: "ip_rpd", label: "Requests per day per IP address", fallback: 600 },
] as const;

/** The fields here that show their own error: a 400 naming one of them is shown beside it. */
export const PUBLIC_FIELDS = ["allowed_origins", ...LIMITS.map((l) => l.name)] as const;

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
  for (const { name } of LIMITS) if (String(f.get(name) ?? "").trim()) body[name] = Number(f.get(name));
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
      {LIMITS.map(({ name, label, fallback }) => {
        const problem = fieldError(error, name, scope);
        return (
          <div class="field" key={name}>
            <label>
              {label}
              <input
                name={name}
                type="number"
                min={1}
                defaultValue={String(settings?.[name] ?? fallback)}
                {...problem.props}
              />
            </label>
            {problem.message}
          </div>
        );
      })}
      <label class="check">
        <input type="checkbox" name="require_proof_of_work" defaultChecked={settings?.require_proof_of_work ?? false} />{" "}
        Require proof of work
      </label>
    </fieldset>
  );
}
