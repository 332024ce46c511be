/**
 * widget.js: defines `<parley-widget>` and, when loaded by the documented snippet
 *
 *   <script src="https://parley.example/widget.js" data-key="pk_…" async></script>
 *
 * adds one to the page, with the script's data attributes. The API is where the script came
 * from (its folder, so a server mounted under a prefix works too) unless `data-base-url` says
 * otherwise. Bundled as a classic script (IIFE): `document.currentScript` is only set for those.
 */
import { defaults, ParleyWidget } from "./element.ts";

const script = document.currentScript as HTMLScriptElement | null;
if (script?.src) defaults.baseUrl ||= new URL(".", script.src).href;

// Loaded twice (two snippets, a tag manager): the first definition stands.
if (!customElements.get("parley-widget")) customElements.define("parley-widget", ParleyWidget);

const key = script?.dataset.key;
if (key) {
  const add = () => {
    if ([...document.querySelectorAll("parley-widget")].some((w) => (w as HTMLElement).dataset.key === key)) return;
    const widget = document.createElement("parley-widget");
    Object.assign(widget.dataset, script!.dataset);
    document.body.append(widget);
  };
  // An async script may run before <body> exists.
  if (document.body) add();
  else document.addEventListener("DOMContentLoaded", add, { once: true });
}
