/** The message field: Enter sends (Shift+Enter: a new line); while a reply runs, Stop instead of Send. */
export function Composer(props: {
  value: string;
  onInput: (text: string) => void;
  send: (e: Event) => void;
  stop?: () => void;
}) {
  return (
    <form class="composer" onSubmit={props.send}>
      <label for="message" class="visually-hidden">
        Message
      </label>
      <textarea
        id="message"
        rows={2}
        value={props.value}
        placeholder="Ask about your documents…"
        onInput={(e) => props.onInput(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey) props.send(e);
        }}
      />
      {props.stop ? (
        <button type="button" class="danger" onClick={props.stop}>
          Stop
        </button>
      ) : (
        <button type="submit">Send</button>
      )}
    </form>
  );
}
