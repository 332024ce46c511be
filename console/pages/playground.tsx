/**
 * Playground: pick a knowledge base and chat (SSE), stop (the stop endpoint, so another tab can
 * stop it too), resume after a reload through Last-Event-ID, conversations with infinite scroll,
 * history, deletion, and feedback on each answer. An open conversation names its knowledge base,
 * and sources show their documents' titles (admin keys: titles are read from the documents).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, qs, readSse, request } from "../api.ts";
import { useKbName } from "../names.ts";
import { Composer } from "./composer.tsx";
import { type Conversation, ConversationList } from "./conversation-list.tsx";
import { type Message, MessageItem } from "./message.tsx";

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
  // The open conversation's knowledge base: undefined until read, null when it was deleted.
  const [openKb, setOpenKb] = useState<string | null | undefined>(undefined);
  const openKbName = useKbName(openKb);
  const [messages, setMessages] = useState<Message[]>([]);
  const [input, setInput] = useState("");
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState("");
  const loading = useRef(false);
  // The cursor as of the last page, read by loadMore: the list's observer may call a loadMore of
  // an earlier render (its `cursor` one page behind) before React re-renders, which fetched the
  // same page twice.
  const cursorNow = useRef<string | null | undefined>(undefined);

  const loadMore = async (reset = false) => {
    if (loading.current || (!reset && cursorNow.current === null)) return;
    loading.current = true;
    try {
      const at = reset ? undefined : cursorNow.current;
      const page = await api("GET", `/v1/conversations${qs({ limit: 20, cursor: at })}`);
      cursorNow.current = page.pagination.next_cursor;
      setList((old) => {
        if (reset) return page.data;
        const seen = new Set(old.map((c) => c.id));
        return [...old, ...page.data.filter((c: Conversation) => !seen.has(c.id))];
      });
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

  /** Follows a reply's events (from `l.seq`), appending tokens; ends on `end` or `error`. */
  const follow = async (res: Response, l: Live): Promise<Live> => {
    let current = l;
    setLive(current);
    for await (const ev of readSse(res)) {
      const d = ev.data;
      if (d.type === "start") {
        current = { ...current, conversation_id: d.conversation_id, message_id: d.message_id };
        setOpen(d.conversation_id);
        // A new conversation heads the list while its reply streams, not after: nothing above the
        // reply's feedback buttons should move once they show.
        if (!l.conversation_id) void loadMore(true);
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
    setOpenKb(undefined);
    try {
      const conv = await refresh(id);
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

  /** Reads conversation `id` again: its messages as stored, its knowledge base. */
  const refresh = async (id: string) => {
    const conv = await api("GET", `/v1/conversations/${encodeURIComponent(id)}`);
    setMessages(conv.messages);
    setOpenKb(conv.knowledge_base_id);
    return conv;
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
            setOpenKb(undefined);
            setMessages([]);
          }}
        >
          New chat
        </button>
        <ConversationList
          list={list}
          open={open}
          more={cursor !== null}
          loadMore={() => void loadMore()}
          onOpen={(id) => void openConversation(id)}
          onRemove={(id) => void remove(id)}
        />
      </aside>
      <section class="chat" aria-labelledby="chat-heading">
        <h1 id="chat-heading">Playground</h1>
        {open && (
          <p class="kb-line">
            Knowledge base: <strong>{openKb === null ? "deleted" : openKbName || "…"}</strong>
          </p>
        )}
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
            <MessageItem key={m.id} m={m} kb={openKb} admin={admin} rate={open} />
          ))}
        </ol>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <Composer value={input} onInput={setInput} send={send} stop={live ? stop : undefined} />
      </section>
    </div>
  );
}
