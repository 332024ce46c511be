/**
 * The "Ask AI" widget live in the console, for one public key at a time. /widget.js is loaded once
 * WITHOUT data-key, which only defines `<parley-widget>` (widget/main.ts); the element is then
 * written by hand (docs/widget.md, "To place the element yourself"), so previewing another key is
 * swapping one element rather than running the script again. Both stay within the console's CSP:
 * the script is from this origin (script-src 'self'), the widget calls this origin's API
 * (connect-src 'self') and styles itself with an adopted stylesheet (no inline style).
 */

let loading: Promise<void> | undefined;

/** Defines `<parley-widget>` by loading /widget.js, once per page. */
function defineWidget(): Promise<void> {
  if (customElements.get("parley-widget")) return Promise.resolve();
  loading ??= new Promise<void>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = "/widget.js";
    script.onload = () => resolve();
    script.onerror = () => {
      // Not cached: a later Preview tries again (the server may have been restarted with the widget).
      loading = undefined;
      script.remove();
      reject(new Error("Could not load /widget.js: this server was built without the widget (bun run build:widget)."));
    };
    document.head.append(script);
  });
  return loading;
}

/** Removes the previewed widget, if any (the one element the preview adds to the page). */
export function stopPreview(): void {
  for (const el of document.querySelectorAll("parley-widget")) el.remove();
}

/** Shows the widget for `publicKey` (a `pk_…` secret), replacing any previous preview. */
export async function preview(publicKey: string): Promise<void> {
  await defineWidget();
  stopPreview();
  try {
    // Each preview is a new visitor: a kept session would read its conversation back with a GET,
    // and a same-origin GET carries no Origin header, which a public key's caller must send.
    localStorage.removeItem(`parley-widget:${publicKey}`);
  } catch {
    // Blocked storage: the widget keeps its session for the page only anyway.
  }
  const widget = document.createElement("parley-widget");
  widget.dataset.key = publicKey;
  widget.dataset.baseUrl = location.origin;
  document.body.append(widget);
}
