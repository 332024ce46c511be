/**
 * One conversation, read-only (#/conversation/<id>): where a rated answer's link leads, and an
 * Insights question's (#/conversation/<id>/insights, so its way back leads there). An admin key
 * reads any key's conversation; only its own key may continue it (in the playground).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { useKbName } from "../names.ts";
import { when } from "../table.tsx";
import { type Message, MessageItem } from "./message.tsx";

interface Detail {
  id: string;
  title: string;
  created_at: string;
  knowledge_base_id: string | null;
  messages: Message[];
  pagination: { has_more: boolean };
}

export function ConversationView({ id, from }: { id: string; from?: string }) {
  const [conv, setConv] = useState<Detail | null>(null);
  const [error, setError] = useState("");
  const kb = useKbName(conv?.knowledge_base_id);
  useEffect(() => {
    setConv(null);
    api<Detail>("GET", `/v1/conversations/${encodeURIComponent(id)}`).then(setConv, (e) => setError(e.message));
  }, [id]);
  return (
    <div class="stack">
      <p>{from === "insights" ? <a href="#/insights">← Insights</a> : <a href="#/usage">← Usage and feedback</a>}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!conv && !error && <p aria-busy="true">Loading…</p>}
      {conv && (
        <>
          <h1>{conv.title || "(untitled)"}</h1>
          <p class="kb-line">
            Knowledge base: <strong>{conv.knowledge_base_id ? kb : "deleted"}</strong> · started {when(conv.created_at)}
          </p>
          {conv.pagination.has_more && <p class="hint">The most recent 100 messages.</p>}
          <ol class="messages">
            {conv.messages.map((m) => (
              <MessageItem key={m.id} m={m} kb={conv.knowledge_base_id} admin={true} />
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
