/**
 * The console: sign-in, then pages chosen by the URL's hash (#/playground, #/knowledge, #/keys,
 * #/usage). Admin pages appear for admin keys only; a chat key sees the playground.
 */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { isAdmin, session } from "./api.ts";
import { Keys } from "./pages/keys.tsx";
import { Knowledge } from "./pages/knowledge.tsx";
import { Playground } from "./pages/playground.tsx";
import { Usage } from "./pages/usage.tsx";

const PAGES = [
  { path: "playground", title: "Playground", admin: false },
  { path: "knowledge", title: "Knowledge", admin: true },
  { path: "keys", title: "Keys", admin: true },
  { path: "usage", title: "Usage and feedback", admin: true },
] as const;

const route = () => location.hash.replace(/^#\/?/, "") || "playground";

function SignIn({ onDone }: { onDone: (admin: boolean) => void }) {
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
      </form>
    </main>
  );
}

function App() {
  const [admin, setAdmin] = useState<boolean | null>(null);
  const [signedIn, setSignedIn] = useState(Boolean(session.key()));
  const [page, setPage] = useState(route());
  useEffect(() => {
    const onHash = () => setPage(route());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    if (signedIn && admin === null)
      isAdmin().then(setAdmin, () => {
        session.clear();
        setSignedIn(false);
      });
  }, [signedIn, admin]);
  const current = PAGES.find((p) => p.path === page && (admin || !p.admin)) ?? PAGES[0];
  useEffect(() => {
    document.title = signedIn ? `${current.title} · Parley console` : "Sign in · Parley console";
  }, [current, signedIn]);
  if (!signedIn)
    return (
      <SignIn
        onDone={(a) => {
          setAdmin(a);
          setSignedIn(true);
        }}
      />
    );
  if (admin === null) return <main aria-busy="true">Loading…</main>;
  return (
    <>
      <header>
        <span class="brand">Parley</span>
        <nav aria-label="Console">
          {PAGES.filter((p) => admin || !p.admin).map((p) => (
            <a href={`#/${p.path}`} aria-current={p === current ? "page" : undefined}>
              {p.title}
            </a>
          ))}
        </nav>
        <span class="role">{admin ? "admin key" : "chat key"}</span>
        <button
          type="button"
          class="link"
          onClick={() => {
            session.clear();
            setSignedIn(false);
            setAdmin(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        {current.path === "playground" && <Playground admin={admin} />}
        {current.path === "knowledge" && <Knowledge />}
        {current.path === "keys" && <Keys />}
        {current.path === "usage" && <Usage />}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
