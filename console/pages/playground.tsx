/**
 * Playground: pick a knowledge base and chat (SSE), stop (the stop endpoint, so another tab can
 * stop it too), resume after a reload through Last-Event-ID, conversations with infinite scroll,
 * history, deletion, and feedback on each answer.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, qs, readSse, request } from "../api.ts";
import { Markdown, safeUrl } from "../markdown.tsx";
import { Feedback } from "./feedback.tsx";

interface Message {
  id: string;
  role: "user" | "assistant";
  content: string;
  sources: string[];
  status: string;
  feedback?: { rating: "up" | "down"; comment: string | null } | null;
}
interface Conversation {
  id: string;
  title: string;
  updated_at: string;
}
/** A reply being followed, kept in sessionStorage so a reload resumes it where it was. */
interface Live {
  conversation_id: string;
  message_id: string;
  seq: number;
  text: string;
}
const LIVE = "parley.console.live";
const saveLive = (live: Live | null) =>
  live ? sessionStorage.setItem(LIVE, JSON.stringify(live)) : sessionStorage.removeItem(LIVE);

export function Playground({ admin }: { admin: boolean }) {
  const [kbs, setKbs] = useState<{ id: string; name: string }[]>([]);
  const [kb, setKb] = useState("");
  const [list, setList] = useState<Conversation[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [open, setOpen] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [input, setInput] = useState("");
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState("");
  const sentinel = useRef<HTMLLIElement>(null);
  const loading = useRef(false);

  const loadMore = async (reset = false) => {
    if (loading.current || (!reset && cursor === null)) return;
    loading.current = true;
    try {
      const page = await api("GET", `/v1/conversations${qs({ limit: 20, cursor: reset ? undefined : cursor })}`);
      setList((old) => (reset ? page.data : [...old, ...page.data]));
      setCursor(page.pagination.next_cursor);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      loading.current = false;
    }
  };

  useEffect(() => {
    if (admin)
      api("GET", "/v1/knowledge_bases?limit=100").then(
        (r) => setKbs(r.data),
        () => {},
      );
    void loadMore(true);
    const saved = sessionStorage.getItem(LIVE);
    if (saved) {
      const l = JSON.parse(saved) as Live;
      void openConversation(l.conversation_id, l);
    }
  }, []);

  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && loadMore());
    io.observe(el);
    return () => io.disconnect();
  });

  /** Follows a reply's events (from `l.seq`), appending tokens; ends on `end` or `error`. */
  const follow = async (res: Response, l: Live): Promise<Live> => {
    let current = l;
    setLive(current);
    for await (const ev of readSse(res)) {
      const d = ev.data;
      if (d.type === "start") {
        current = { ...current, conversation_id: d.conversation_id, message_id: d.message_id };
        setOpen(d.conversation_id);
        setMessages((ms) => [
          ...ms.filter((m) => m.id !== d.message_id),
          { id: d.message_id, role: "assistant", content: "", sources: [], status: "in_progress" },
        ]);
      } else if (d.type === "token") current = { ...current, text: current.text + d.content };
      else if (d.type === "sources") {
        const id = current.message_id;
        setMessages((ms) => ms.map((m) => (m.id === id ? { ...m, sources: d.sources } : m)));
      } else if (d.type === "end" || d.type === "error") {
        const id = current.message_id;
        const status = d.type === "end" ? d.status : "failed";
        setMessages((ms) => ms.map((m) => (m.id === id ? { ...m, content: current.text, status } : m)));
        if (d.type === "error") setError(d.error.message);
        saveLive(null);
        setLive(null);
        return current;
      }
      current = { ...current, seq: ev.id };
      saveLive(current);
      const { message_id, text } = current;
      setMessages((ms) => ms.map((m) => (m.id === message_id ? { ...m, content: text } : m)));
      setLive(current);
    }
    saveLive(null);
    setLive(null);
    return current;
  };

  const openConversation = async (id: string, resume?: Live) => {
    setError("");
    setOpen(id);
    try {
      const conv = await api("GET", `/v1/conversations/${encodeURIComponent(id)}`);
      setMessages(conv.messages);
      const last = conv.messages.at(-1) as Message | undefined;
      if (last?.role === "assistant" && last.status === "in_progress") {
        // Running here before a reload (resume after what we had) or elsewhere (follow from start).
        const from =
          resume?.message_id === last.id ? resume : { conversation_id: id, message_id: last.id, seq: 0, text: "" };
        const path = `/v1/conversations/${encodeURIComponent(id)}/messages/${encodeURIComponent(last.id)}/events`;
        const res = await request("GET", path, undefined, { "last-event-id": String(from.seq) });
        if (res.status === 204) return void saveLive(null);
        await follow(res, from);
        await refresh(id);
      } else saveLive(null);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const refresh = async (id: string) => {
    const conv = await api("GET", `/v1/conversations/${encodeURIComponent(id)}`);
    setMessages(conv.messages);
  };

  const send = async (e: Event) => {
    e.preventDefault();
    const message = input.trim();
    if (!message || live) return;
    setError("");
    setInput("");
    setMessages((ms) => [
      ...ms,
      { id: `local-${Date.now()}`, role: "user", content: message, sources: [], status: "completed" },
    ]);
    try {
      const body: Record<string, unknown> = { message, stream: true };
      if (open) body.conversation_id = open;
      else if (kb) body.knowledge_base_id = kb;
      const res = await request("POST", "/v1/chat", body);
      const done = await follow(res, { conversation_id: open ?? "", message_id: "", seq: 0, text: "" });
      if (!open) await loadMore(true); // the new conversation heads the list
      if (done.conversation_id) await refresh(done.conversation_id);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const stop = async () => {
    if (!live) return;
    try {
      await api("POST", `/v1/conversations/${live.conversation_id}/messages/${live.message_id}/stop`);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const remove = async (id: string) => {
    if (!confirm("Delete this conversation and its messages?")) return;
    try {
      await api("DELETE", `/v1/conversations/${encodeURIComponent(id)}`);
      setList((l) => l.filter((c) => c.id !== id));
      if (open === id) {
        setOpen(null);
        setMessages([]);
      }
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <div class="playground">
      <aside aria-labelledby="conv-heading">
        <h2 id="conv-heading">Conversations</h2>
        <button
          type="button"
          onClick={() => {
            setOpen(null);
            setMessages([]);
          }}
        >
          New chat
        </button>
        <ul class="conversations">
          {list.map((c) => (
            <li key={c.id} class={c.id === open ? "active" : ""}>
              <button type="button" class="link" onClick={() => openConversation(c.id)}>
                {c.title || "(untitled)"}
              </button>
              <button type="button" class="icon" aria-label={`Delete ${c.title}`} onClick={() => remove(c.id)}>
                ✕
              </button>
            </li>
          ))}
          {cursor !== null && (
            <li ref={sentinel}>
              <button type="button" class="link" onClick={() => loadMore()}>
                Load more
              </button>
            </li>
          )}
        </ul>
      </aside>
      <section class="chat" aria-labelledby="chat-heading">
        <h1 id="chat-heading">Playground</h1>
        {admin && !open && (
          <p>
            <label for="kb">Knowledge base </label>
            <select id="kb" value={kb} onChange={(e) => setKb(e.currentTarget.value)}>
              <option value="">Key's default</option>
              {kbs.map((k) => (
                <option value={k.id}>{k.name}</option>
              ))}
            </select>
          </p>
        )}
        <ol class="messages" aria-live="polite">
          {messages.map((m) => (
            <li key={m.id} class={`msg ${m.role}`}>
              <span class="who">{m.role === "user" ? "You" : "Parley"}</span>
              {m.role === "user" ? <p class="plain">{m.content}</p> : <Markdown text={m.content} sources={m.sources} />}
              {m.sources.length > 0 && (
                <ol class="sources" aria-label="Sources">
                  {m.sources.map((s) => (
                    <li>
                      {safeUrl(s) ? (
                        <a href={safeUrl(s)} target="_blank" rel="noopener noreferrer">
                          {s}
                        </a>
                      ) : (
                        s
                      )}
                    </li>
                  ))}
                </ol>
              )}
              {m.role === "assistant" && m.status !== "in_progress" && m.status !== "completed" && (
                <p class="status">{m.status}</p>
              )}
              {m.role === "assistant" && open && !m.id.startsWith("local-") && m.status !== "in_progress" && (
                <Feedback conversation={open} message={m.id} initial={m.feedback ?? null} />
              )}
            </li>
          ))}
        </ol>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <form class="composer" onSubmit={send}>
          <label for="message" class="visually-hidden">
            Message
          </label>
          <textarea
            id="message"
            rows={2}
            value={input}
            placeholder="Ask about your documents…"
            onInput={(e) => setInput(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) send(e);
            }}
          />
          {live ? (
            <button type="button" class="danger" onClick={stop}>
              Stop
            </button>
          ) : (
            <button type="submit">Send</button>
          )}
        </form>
      </section>
    </div>
  );
}
