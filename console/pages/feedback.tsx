/** Thumbs up or down on one answer, with an optional comment (PUT …/feedback; DELETE clears it). */
import { useState } from "preact/hooks";
import { api } from "../api.ts";

type Rating = { rating: "up" | "down"; comment: string | null };

export function Feedback(props: { conversation: string; message: string; initial: Rating | null }) {
  const [rating, setRating] = useState<Rating | null>(props.initial);
  const [comment, setComment] = useState(props.initial?.comment ?? "");
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState("");
  const path = `/v1/conversations/${props.conversation}/messages/${props.message}/feedback`;
  const rate = async (value: "up" | "down", text: string | null = rating?.comment ?? null) => {
    try {
      setError("");
      if (rating?.rating === value && text === rating.comment && !editing) {
        await api("DELETE", path);
        setRating(null);
        return;
      }
      const saved = await api("PUT", path, { rating: value, comment: text || null });
      setRating({ rating: saved.rating, comment: saved.comment });
      setEditing(value === "down" && !text);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="feedback">
      <button type="button" class="icon" aria-pressed={rating?.rating === "up"} onClick={() => rate("up")}>
        Good answer
      </button>
      <button type="button" class="icon" aria-pressed={rating?.rating === "down"} onClick={() => rate("down")}>
        Bad answer
      </button>
      <button type="button" class="link" onClick={() => setEditing(!editing)}>
        {rating?.comment ? "Edit comment" : "Comment"}
      </button>
      {editing && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setEditing(false);
            void rate(rating?.rating ?? "down", comment);
          }}
        >
          <label for={`c-${props.message}`} class="visually-hidden">
            Comment on this answer
          </label>
          <input
            id={`c-${props.message}`}
            value={comment}
            maxLength={2000}
            onInput={(e) => setComment(e.currentTarget.value)}
          />
          <button type="submit">Save</button>
        </form>
      )}
      {rating?.comment && !editing && <q>{rating.comment}</q>}
      {error && <span class="error">{error}</span>}
    </div>
  );
}
