/**
 * `<parley-widget data-key="pk_…">`: a launcher button and a chat panel in an open shadow root.
 * The panel is a modal dialog: focus moves into it on opening, Tab cycles inside it, Escape closes
 * it and gives focus back to the launcher. Questions stream their answers into a polite live log;
 * failures (limits, a site not allowed) go to a role="alert" line. The first opening asks for the
 * visitor's session (solving a proof of work if the key wants one) and shows their conversation.
 */

import type { ChatEvent } from "../src/client/types.ts";
import { type Api, createApi, describeError } from "./api.ts";
import { type Layout, layout } from "./layout.ts";
import { type AnswerView, answerView, userMessage } from "./messages.ts";
import { CSS } from "./style.ts";

const FOCUSABLE = "button,textarea,a[href],[tabindex]";

/** Where scripts that load the widget came from: the default API base for a hand-placed element. */
export const defaults = { baseUrl: "" };

let sheet: CSSStyleSheet | undefined;

/** The reply being streamed: what Stop needs. */
interface Run {
  abort: AbortController;
  conversationId?: string;
  messageId?: string;
}

export class ParleyWidget extends HTMLElement {
  private api?: Api;
  private built = false;
  private loaded = false;
  private streaming?: Run;
  private ui!: Layout;
  private readonly root = this.attachShadow({ mode: "open" });

  connectedCallback(): void {
    if (this.built) return;
    this.built = true;
    const d = this.dataset;
    if (!d.key) {
      console.warn("<parley-widget>: data-key (the public key) is required");
      return;
    }
    if (!sheet) {
      // One stylesheet shared by every widget on the page.
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    this.root.adoptedStyleSheets = [sheet];
    this.api = createApi({
      baseUrl: d.baseUrl || defaults.baseUrl || location.origin,
      publicKey: d.key,
      knowledgeBase: d.knowledgeBase,
      // Read at each session opening: a site that signs its users in sets it (and renews it) on the element.
      userToken: () => this.dataset.userToken || null,
    });
    this.ui = layout(d, {
      toggle: () => this.toggle(),
      ask: (q) => void this.ask(q),
      stop: () => this.stop(),
      reset: () => this.reset(),
      close: () => this.close(),
      inputKey: (e) => this.onInputKey(e),
      panelKey: (e) => this.onPanelKey(e),
    });
    this.root.append(this.ui.root);
  }

  private toggle(): void {
    if (this.ui.panel.hidden) this.open();
    else this.close();
  }

  open(): void {
    this.ui.panel.hidden = false;
    this.ui.launcher.setAttribute("aria-expanded", "true");
    this.ui.input.focus();
    if (!this.loaded) void this.load();
  }

  close(): void {
    this.ui.panel.hidden = true;
    this.ui.launcher.setAttribute("aria-expanded", "false");
    this.ui.launcher.focus();
  }

  /** On first opening: the visitor's session (solved meanwhile, if a proof is needed) and conversation. */
  private async load(): Promise<void> {
    this.loaded = true;
    try {
      if (!this.api!.session.started) return void (await this.api!.session.token());
      const conversation = await this.api!.history();
      if (!conversation) return;
      const id = conversation.id;
      let running: { view: AnswerView; messageId: string } | undefined;
      for (const m of conversation.messages) {
        if (m.role === "user") this.ui.log.append(userMessage(m.content));
        else if (m.status === "in_progress") {
          // Still being written (the page was reloaded mid-answer): followed from its start.
          running = { view: answerView(), messageId: m.id };
          this.ui.log.append(running.view.el);
        } else {
          const view = answerView(m.content);
          view.setSources(m.sources);
          view.finish(m.feedback?.rating ?? null, (r) => this.rate(id, m.id, r));
          this.ui.log.append(view.el);
        }
      }
      this.ui.starters.hidden = conversation.messages.length > 0;
      if (running) {
        const { view, messageId } = running;
        await this.follow(view, (signal) => this.api!.resume(id, messageId, signal), { conversationId: id, messageId });
      }
    } catch (error) {
      this.loaded = false; // try again on the next opening
      this.ui.alert.textContent = describeError(error);
    }
  }

  private onInputKey(e: KeyboardEvent): void {
    // Enter sends, Shift+Enter is a new line (as in most chat boxes).
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void this.ask(this.ui.input.value);
    }
  }

  private onPanelKey(e: KeyboardEvent): void {
    if (e.key === "Escape") {
      e.preventDefault();
      this.close();
    } else if (e.key === "Tab") {
      // Focus stays in the dialog: past the last control it wraps to the first, and back.
      const all = [...this.ui.panel.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
        (el) => !el.closest("[hidden]") && !(el as HTMLButtonElement).disabled,
      );
      const first = all[0];
      const last = all[all.length - 1];
      const active = this.root.activeElement;
      const outside = !this.ui.panel.contains(active);
      const to = e.shiftKey ? (active === first || outside) && last : (active === last || outside) && first;
      if (to) {
        e.preventDefault();
        to.focus();
      }
    }
  }

  private async rate(conversationId: string, messageId: string, rating: "up" | "down" | null): Promise<void> {
    try {
      await this.api!.feedback(conversationId, messageId, rating);
    } catch (error) {
      this.ui.alert.textContent = describeError(error);
      throw error;
    }
  }

  private busy(on: boolean): void {
    this.ui.send.hidden = on;
    this.ui.stop.hidden = !on;
    if (!on && this.root.activeElement === this.ui.stop) this.ui.input.focus();
  }

  /** Sends a question and streams its answer into the log. */
  async ask(text: string): Promise<void> {
    const question = text.trim();
    if (!question || this.streaming) return;
    this.ui.input.value = "";
    this.ui.alert.textContent = "";
    this.ui.starters.hidden = true;
    const view = answerView();
    this.ui.log.append(userMessage(question), view.el);
    await this.follow(view, (signal) => this.api!.ask(question, signal), {});
  }

  /** Streams a reply's events into `view`, with Stop and the rating buttons; failures go to the alert line. */
  private async follow(view: AnswerView, events: (signal: AbortSignal) => AsyncIterable<ChatEvent>, ref: Partial<Run>) {
    view.el.scrollIntoView?.({ block: "end" });
    const run: Run = { ...ref, abort: new AbortController() };
    this.streaming = run;
    this.busy(true);
    let ended = false;
    try {
      for await (const e of events(run.abort.signal)) {
        if (e.type === "start") Object.assign(run, { conversationId: e.conversationId, messageId: e.messageId });
        else if (e.type === "token") view.append(e.content);
        else if (e.type === "sources") view.setSources(e.sources);
        else if (e.type === "end") {
          ended = true;
          const { conversationId, messageId } = run;
          view.finish(null, conversationId && messageId ? (r) => this.rate(conversationId, messageId, r) : undefined);
          if (e.status === "stopped") view.note("Stopped.");
        } else if (e.type === "error") {
          ended = true;
          view.note("No answer.");
          this.ui.alert.textContent = "The assistant could not answer. Please try again.";
        }
        this.ui.log.scrollTop = this.ui.log.scrollHeight;
      }
      if (!ended) view.note("Stopped.");
    } catch (error) {
      view.note("No answer.");
      this.ui.alert.textContent = describeError(error);
    } finally {
      this.streaming = undefined;
      this.busy(false);
    }
  }

  /** Stops the reply on the server (the stream then ends by itself), or drops a request not yet started. */
  private stop(): void {
    const run = this.streaming;
    if (!run) return;
    if (run.conversationId && run.messageId)
      this.api!.stop(run.conversationId, run.messageId).catch(() => run.abort.abort());
    else run.abort.abort();
  }

  /** A new conversation: the next question starts one. */
  private reset(): void {
    this.streaming?.abort.abort();
    this.api!.session.conversationId = null;
    this.ui.log.replaceChildren(this.ui.starters);
    this.ui.starters.hidden = false;
    this.ui.alert.textContent = "";
    this.ui.input.focus();
  }
}
