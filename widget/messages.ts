/**
 * One exchange's views: the visitor's question, and the answer that grows as tokens arrive
 * (re-rendered from the whole text at most once a frame, so a half-written list or code block
 * shows as one), with its sources and the 👍/👎 buttons once the reply has ended. The thumbs
 * are SVG icons, not emoji: a system without a colour emoji font (many Linux desktops) showed
 * empty boxes.
 */
import { h, icon, renderMarkdown } from "./dom.ts";
import { parseMarkdown, safeUrl } from "./markdown.ts";

// Thumbs up and down (Material Icons, Apache-2.0), one path each.
const UP_ICON =
  "M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z";
const DOWN_ICON =
  "M15 3H6c-.83 0-1.54.5-1.84 1.22l-3.02 7.05c-.09.23-.14.47-.14.73v2c0 1.1.9 2 2 2h6.31l-.95 4.57-.03.32c0 .41.17.79.44 1.06L9.83 23l6.59-6.59c.36-.36.58-.86.58-1.41V5c0-1.1-.9-2-2-2zm4 0v12h4V3h-4z";

export const userMessage = (text: string) => h("div", { class: "msg user" }, h("span", { class: "sr" }, "You: "), text);

export interface AnswerView {
  el: HTMLElement;
  append(text: string): void;
  setSources(sources: string[]): void;
  /** The reply ended: show the rating buttons (`rate` sends, null withdraws). */
  finish(rating: "up" | "down" | null, rate?: (r: "up" | "down" | null) => Promise<unknown>): void;
  /** Ends a reply with a note (stopped, failed), keeping what arrived. */
  note(text: string): void;
  readonly text: string;
}

export function answerView(initial = ""): AnswerView {
  let text = initial;
  let sources: string[] = [];
  let frame = 0;
  const body = h("div", { class: "md" });
  const list = h("div", { class: "sources", hidden: true });
  const actions = h("div", { class: "actions", hidden: true });
  // aria-busy while streaming: the live log announces the answer once, when it is complete.
  const el = h(
    "div",
    { class: "msg bot", "aria-busy": "true" },
    h("span", { class: "sr" }, "Assistant: "),
    body,
    list,
    actions,
  );

  const render = () => {
    frame = 0;
    body.replaceChildren(
      ...(text ? renderMarkdown(parseMarkdown(text, sources)) : [h("span", { class: "typing" }, "…")]),
    );
  };
  const schedule = () => {
    frame ||= requestAnimationFrame(render);
  };
  render();

  return {
    el,
    get text() {
      return text;
    },
    append(more) {
      text += more;
      schedule();
    },
    setSources(urls) {
      sources = urls.filter((u) => safeUrl(u));
      const items = sources.map((url) => {
        const u = new URL(url);
        return h(
          "li",
          {},
          h(
            "a",
            { href: u.href, target: "_blank", rel: "noopener noreferrer" },
            `${u.host}${u.pathname.replace(/\/$/, "")}`,
          ),
        );
      });
      list.replaceChildren(h("h3", {}, "Sources"), h("ol", {}, ...items));
      list.hidden = items.length === 0;
      schedule(); // the citations [n] now link
    },
    finish(rating, rate) {
      if (frame) cancelAnimationFrame(frame);
      render();
      el.setAttribute("aria-busy", "false");
      if (!rate) return;
      let current = rating;
      const button = (value: "up" | "down", label: string, glyph: string) =>
        h(
          "button",
          {
            type: "button",
            "aria-label": label,
            title: label,
            "aria-pressed": String(current === value),
            "data-rating": value,
            onclick: () => {
              const next = current === value ? null : value;
              rate(next).then(
                () => {
                  current = next;
                  for (const b of actions.querySelectorAll("button"))
                    b.setAttribute("aria-pressed", String(b.dataset.rating === current));
                },
                () => {},
              );
            },
          },
          icon(glyph),
        );
      actions.replaceChildren(button("up", "Helpful", UP_ICON), button("down", "Not helpful", DOWN_ICON));
      actions.hidden = false;
    },
    note(message) {
      body.after(h("p", { class: "typing" }, message));
      this.finish(null);
    },
  };
}
