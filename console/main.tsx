/**
 * The console: sign-in (or, on a server without an admin key, the first-run page), then pages
 * chosen by the URL's hash: #/playground, #/knowledge[/kb[/doc]], #/keys, #/usage, #/insights, #/backups and
 * #/conversation/<id>[/insights] (the page it was opened from, for its way back). Admin pages appear for admin keys only; a chat key sees the playground.
 */
import { render } from "preact";
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import { isAdmin, session } from "./api.ts";
import { forgetNames } from "./names.ts";
import { Backups } from "./pages/backups.tsx";
import { ConversationView } from "./pages/conversation.tsx";
import { DocumentView } from "./pages/document.tsx";
import { FirstRun, type SetupState, setupState } from "./pages/first-run.tsx";
import { Insights } from "./pages/insights.tsx";
import { Keys } from "./pages/keys.tsx";
import { Knowledge } from "./pages/knowledge.tsx";
import { Playground } from "./pages/playground.tsx";
import { SignIn } from "./pages/signin.tsx";
import { Usage } from "./pages/usage.tsx";

const PAGES = [
  { path: "playground", title: "Playground", admin: false, nav: true },
  { path: "knowledge", title: "Knowledge", admin: true, nav: true },
  { path: "keys", title: "Keys", admin: true, nav: true },
  { path: "usage", title: "Usage and feedback", admin: true, nav: true },
  { path: "insights", title: "Insights", admin: true, nav: true },
  { path: "backups", title: "Backups", admin: true, nav: true },
  { path: "conversation", title: "Conversation", admin: true, nav: false },
] as const;

/** The hash as path segments: `#/knowledge/kb_1/doc_2` → ["knowledge", "kb_1", "doc_2"]. */
const route = () => {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  return parts.length ? parts : ["playground"];
};

function App() {
  const [admin, setAdmin] = useState<boolean | null>(null);
  const [signedIn, setSignedIn] = useState(Boolean(session.key()));
  const [setup, setSetup] = useState<SetupState | null>(null);
  const [keyInHand, setKeyInHand] = useState(false);
  const [parts, setParts] = useState(route());
  useEffect(() => {
    const onHash = () => setParts(route());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    if (signedIn && admin === null)
      isAdmin().then(setAdmin, () => {
        session.clear();
        setSignedIn(false);
      });
    if (!signedIn && setup === null) void setupState().then(setSetup);
  }, [signedIn, admin, setup]);
  const [page, ...args] = parts;
  const current = PAGES.find((p) => p.path === page && (admin || !p.admin)) ?? PAGES[0];
  const setupLeft = setup === "open" || setup === "no_code";
  const firstRun = !signedIn && setupLeft && !keyInHand;
  // Layout effect: the title changes in the same commit as the page it names, never a frame later.
  useLayoutEffect(() => {
    const title = signedIn ? current.title : firstRun ? "First run" : "Sign in";
    document.title = `${title} · Parley console`;
  }, [current, signedIn, firstRun]);
  const enter = (a: boolean) => {
    setAdmin(a);
    setSignedIn(true);
  };
  if (!signedIn && setup === null) return <main aria-busy="true">Loading…</main>;
  if (firstRun)
    return (
      <FirstRun
        state={setup!}
        onKey={(secret) => {
          session.set(secret);
          enter(true);
        }}
        signIn={() => setKeyInHand(true)}
      />
    );
  if (!signedIn) return <SignIn onDone={enter} firstRun={setupLeft ? () => setKeyInHand(false) : undefined} />;
  if (admin === null) return <main aria-busy="true">Loading…</main>;
  return (
    <>
      <header>
        <span class="brand">Parley</span>
        <nav aria-label="Console">
          {PAGES.filter((p) => p.nav && (admin || !p.admin)).map((p) => (
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
            forgetNames();
            setSignedIn(false);
            setAdmin(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        {current.path === "playground" && <Playground admin={admin} />}
        {current.path === "knowledge" &&
          (args.length >= 2 ? <DocumentView kb={args[0]!} doc={args[1]!} /> : <Knowledge open={args[0] ?? null} />)}
        {current.path === "keys" && <Keys />}
        {current.path === "usage" && <Usage />}
        {current.path === "insights" && <Insights />}
        {current.path === "backups" && <Backups />}
        {current.path === "conversation" && args[0] && <ConversationView id={args[0]} from={args[1]} />}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
