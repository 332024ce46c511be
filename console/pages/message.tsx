/** One message of a conversation: the question as text, the answer as Markdown with its sources (titles when known). */
import { Markdown } from "../markdown.tsx";
import { Sources } from "../sources.tsx";
import { Feedback } from "./feedback.tsx";

export interface Message {
  id: string;
  role: "user" | "assistant";
  content: string;
  sources: string[];
  status: string;
  created_at?: string;
  feedback?: { rating: "up" | "down"; comment: string | null } | null;
}

/**
 * `rate`: the conversation whose answers may be rated here (the playground's own), else the
 * rating is shown as it is (a conversation of another key, read by an admin). An answer is rated
 * once read back as stored (`feedback` present, null when unrated): its buttons start from the
 * stored rating and show after the reply's last refresh, so nothing moves them under the pointer.
 */
export function MessageItem(props: {
  m: Message;
  kb: string | null | undefined;
  admin: boolean;
  rate?: string | null;
}) {
  const { m, kb, admin, rate } = props;
  const ended = m.status !== "in_progress";
  return (
    <li class={`msg ${m.role}`}>
      <span class="who">{m.role === "user" ? "You" : "Parley"}</span>
      {m.role === "user" ? <p class="plain">{m.content}</p> : <Markdown text={m.content} sources={m.sources} />}
      <Sources urls={m.sources} kb={kb} admin={admin} />
      {m.role === "assistant" && ended && m.status !== "completed" && <p class="status">{m.status}</p>}
      {m.role === "assistant" && rate && m.feedback !== undefined && ended && (
        <Feedback conversation={rate} message={m.id} initial={m.feedback ?? null} />
      )}
      {m.role === "assistant" && !rate && m.feedback && (
        <p class="status">
          Rated {m.feedback.rating === "up" ? "good" : "bad"}
          {m.feedback.comment ? `: “${m.feedback.comment}”` : ""}
        </p>
      )}
    </li>
  );
}
