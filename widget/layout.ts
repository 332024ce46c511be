/**
 * The widget's elements: the launcher (named by the title) and the dialog panel with its header,
 * the conversation log (a polite live region), the alert line, and the question form with its
 * labelled text box. Built once from the element's data attributes; behaviour is element.ts's.
 */
import { h, icon } from "./dom.ts";

const CHAT_ICON = "M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H8l-5 4V5a2 2 0 0 1 1-2zm3 6v2h10V9zm0 4v2h7v-2z";
const CLOSE_ICON = "M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4z";

/** What the controls do. */
export interface Handlers {
  toggle(): void;
  ask(question: string): void;
  stop(): void;
  reset(): void;
  close(): void;
  inputKey(e: KeyboardEvent): void;
  panelKey(e: KeyboardEvent): void;
}

export type Layout = ReturnType<typeof layout>;

export function layout(d: DOMStringMap, on: Handlers) {
  const title = d.title || "Ask AI";
  const theme = d.theme === "dark" || d.theme === "light" ? d.theme : "auto";
  const launcher = h(
    "button",
    {
      type: "button",
      class: "launcher",
      "aria-label": title,
      "aria-haspopup": "dialog",
      "aria-expanded": "false",
      "aria-controls": "panel",
      onclick: () => on.toggle(),
    },
    icon(CHAT_ICON),
  );
  const questions = (d.starters ?? "")
    .split("|")
    .map((s) => s.trim())
    .filter(Boolean);
  const starters = h(
    "div",
    { class: "starters" },
    ...questions.map((q) => h("button", { type: "button", onclick: () => on.ask(q) }, q)),
  );
  const log = h(
    "div",
    { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: 0 },
    starters,
  );
  const alert = h("p", { class: "alert", role: "alert" });
  const input = h("textarea", {
    id: "q",
    rows: 1,
    placeholder: d.placeholder || "Ask a question…",
    onkeydown: (e) => on.inputKey(e as KeyboardEvent),
  });
  const send = h("button", { type: "submit", class: "send" }, "Send");
  const stop = h("button", { type: "button", class: "stop", hidden: true, onclick: () => on.stop() }, "Stop");
  const form = h(
    "form",
    {
      onsubmit: (e) => {
        e.preventDefault();
        on.ask(input.value);
      },
    },
    h("label", { for: "q", class: "sr" }, "Ask a question"),
    input,
    send,
    stop,
  );
  const header = h(
    "header",
    {},
    h("h2", { id: "title" }, title),
    h("button", { type: "button", class: "ghost", onclick: () => on.reset() }, "New conversation"),
    h(
      "button",
      { type: "button", class: "ghost close", "aria-label": "Close", onclick: () => on.close() },
      icon(CLOSE_ICON),
    ),
  );
  const panel = h(
    "div",
    {
      id: "panel",
      class: "panel",
      role: "dialog",
      "aria-modal": "true",
      "aria-labelledby": "title",
      hidden: true,
      onkeydown: (e) => on.panelKey(e as KeyboardEvent),
    },
    header,
    log,
    alert,
    form,
  );
  const position = d.position === "bottom-left" ? "left" : "right";
  const root = h("div", { class: `root ${theme} ${position}` }, launcher, panel);
  return { root, launcher, panel, log, alert, input, send, stop, starters };
}
