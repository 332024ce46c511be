/**
 * First run: the server has no admin key yet and printed a one-time setup code in its log.
 * Exchanging it (POST /v1/setup, no key) makes the first admin key, whose secret is shown once
 * here before the console signs in with it.
 */
import { useState } from "preact/hooks";
import { ApiError, fail } from "../api.ts";

export type SetupState = "open" | "no_code" | "done";

/** The server's setup state (GET /v1/setup); `done` when it cannot say. */
export async function setupState(): Promise<SetupState> {
  try {
    const res = await fetch("/v1/setup");
    return res.ok ? ((await res.json()) as { state: SetupState }).state : "done";
  } catch {
    return "done";
  }
}

export function FirstRun(props: { state: SetupState; onKey: (secret: string) => void; signIn: () => void }) {
  const [code, setCode] = useState("");
  const [name, setName] = useState("admin");
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    setError("");
    try {
      const res = await fetch("/v1/setup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: code.trim(), name: name.trim() || "admin" }),
      });
      if (!res.ok) await fail(res);
      setSecret(((await res.json()) as { secret: string }).secret);
    } catch (err) {
      const done = err instanceof ApiError && err.code === "setup_closed";
      setError(done ? "Setup is already done: this server has an admin key. Sign in with it." : (err as Error).message);
    }
  };
  if (secret)
    return (
      <main class="signin">
        <h1>Your admin key</h1>
        <div class="secret" role="status">
          <p>Copy this key now and keep it safe: it is shown only once, and it manages everything.</p>
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
          </button>
        </div>
        <p>
          <button type="button" onClick={() => props.onKey(secret)}>
            Continue to the console
          </button>
        </p>
      </main>
    );
  return (
    <main class="signin">
      <h1>Welcome to Parley</h1>
      <p>This server has no admin key yet. Create the first one with the setup code from the server's log.</p>
      {props.state === "no_code" ? (
        <p class="error" role="alert">
          No setup code is valid now: a code lasts one hour and ends when its server stops. Restart the server for a new
          one (its log shows it), or run <code>parley keys create --admin</code>.
        </p>
      ) : (
        <form onSubmit={submit}>
          <label for="setup-code">Setup code</label>
          <input
            id="setup-code"
            autoComplete="off"
            spellcheck={false}
            placeholder="XXXXX-XXXXX-XXXXX-XXXXX"
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
            required
          />
          <p class="hint">
            The log line reads "no admin key yet: … enter the setup code …". The code works once, for one hour.
          </p>
          <label for="admin-name">Name of the admin key</label>
          <input id="admin-name" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit">Create the admin key</button>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
        </form>
      )}
      <p>
        <button type="button" class="link" onClick={props.signIn}>
          I have a key: sign in
        </button>
      </p>
    </main>
  );
}
