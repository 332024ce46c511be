/** Sign-in: an API key pasted into the tab's session, checked with one request. */
import { useState } from "preact/hooks";
import { isAdmin, session } from "../api.ts";

export function SignIn({ onDone, firstRun }: { onDone: (admin: boolean) => void; firstRun?: () => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    session.set(key.trim());
    try {
      onDone(await isAdmin());
    } catch (err) {
      session.clear();
      setError((err as Error).message);
    }
  };
  return (
    <main class="signin">
      <h1>Parley console</h1>
      <form onSubmit={submit}>
        <label for="key">API key</label>
        <input
          id="key"
          type="password"
          autoComplete="off"
          placeholder="prl_…"
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          required
        />
        <button type="submit">Sign in</button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <p class="hint">The key stays in this tab's session storage until you sign out or close the tab.</p>
        {firstRun && (
          <p>
            <button type="button" class="link" onClick={firstRun}>
              First run: I have a setup code
            </button>
          </p>
        )}
      </form>
    </main>
  );
}
