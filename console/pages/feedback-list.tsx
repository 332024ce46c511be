/**
 * Rated answers (GET /v1/feedback), newest rating first: each with its date, the key that asked,
 * a link to its conversation (admin keys read any key's), the question, and the answer rendered
 * as Markdown with its sources.
 */
import { useEffect, useState } from "preact/hooks";
import { api, qs } from "../api.ts";
import { Markdown } from "../markdown.tsx";
import { keyNamesById } from "../names.ts";
import { Sources } from "../sources.tsx";
import { when } from "../table.tsx";

interface Item {
  message_id: string;
  conversation_id: string;
  key_id: string;
  rating: "up" | "down";
  comment: string | null;
  updated_at: string;
  question: string | null;
  answer: string;
  sources: string[];
}

export function RatedAnswers() {
  const [rating, setRating] = useState<"down" | "up" | "">("down");
  const [items, setItems] = useState<Item[] | null>(null);
  const [names, setNames] = useState(new Map<string, string>());
  const [error, setError] = useState("");
  useEffect(() => void keyNamesById().then(setNames), []);
  useEffect(() => {
    setItems(null);
    api("GET", `/v1/feedback${qs({ rating, limit: 50 })}`).then(
      (r) => setItems(r.data),
      (e) => setError(e.message),
    );
  }, [rating]);
  return (
    <section aria-labelledby="rated-heading">
      <h2 id="rated-heading">Rated answers</h2>
      <p class="row">
        <label for="rating">Show</label>
        <select id="rating" value={rating} onChange={(e) => setRating(e.currentTarget.value as "down" | "up" | "")}>
          <option value="down">Down-voted answers</option>
          <option value="up">Up-voted answers</option>
          <option value="">All rated answers</option>
        </select>
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {items?.length === 0 && <p>No answer was rated so.</p>}
      <ul class="downs">
        {items?.map((f) => (
          <li class="card">
            <p class="meta">
              <span>{f.rating === "down" ? "Bad answer" : "Good answer"}</span> ·{" "}
              <time dateTime={f.updated_at}>{when(f.updated_at)}</time> · key{" "}
              <strong>{names.get(f.key_id) ?? f.key_id}</strong> ·{" "}
              <a href={`#/conversation/${encodeURIComponent(f.conversation_id)}`}>Open the conversation</a>
            </p>
            <p>
              <strong>Question:</strong> <span class="plain">{f.question ?? "(none)"}</span>
            </p>
            <div>
              <strong>Answer:</strong>
              <Markdown text={f.answer} sources={f.sources} />
              <Sources urls={f.sources} kb={null} admin={true} />
            </div>
            {f.comment && (
              <p>
                <strong>Comment:</strong> <span class="plain">{f.comment}</span>
              </p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
