/**
 * A public key's website widget: the embed snippet to copy, and a live preview on this page. The
 * snippet names this server by the console's own origin (the console and /widget.js are served
 * by the same Parley). A public key's `prefix` is its whole `pk_…` secret: it is meant to be seen.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ApiKey } from "../../src/contract/keys.ts";
import { preview, stopPreview } from "../widget-preview.ts";

export const embedSnippet = (key: string) =>
  `<script src="${location.origin}/widget.js" data-key="${key}" async></script>`;

export function KeyWidget({ k, onClose }: { k: ApiKey; onClose: () => void }) {
  const [status, setStatus] = useState("");
  const [previewing, setPreviewing] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const snippet = embedSnippet(k.prefix);
  const origin = location.origin;
  // Sessions open only from an allowed origin, and only with a site-signed user token when the key
  // wants one (which the console cannot make): either way a preview would only show a refusal.
  const allowed = k.widget?.allowed_origins.includes(origin) ?? false;
  const userTokens = k.widget?.user_tokens ?? false;
  const canPreview = allowed && !userTokens;
  // Shown below the list or the form that asked for it: focus (and so scroll) goes to it at once.
  useEffect(() => heading.current?.focus(), [k.id]);
  // The preview belongs to this panel: it goes when the panel does (closed, another key, another page).
  useEffect(() => () => stopPreview(), []);

  const copy = () =>
    navigator.clipboard.writeText(snippet).then(
      () => setStatus("Copied"),
      () => setStatus("Could not copy: select the snippet and copy it yourself."),
    );
  const show = async () => {
    try {
      await preview(k.prefix);
      setPreviewing(true);
      setStatus("Preview on: the widget's button is at the bottom right of this page.");
    } catch (err) {
      setStatus((err as Error).message);
    }
  };
  const hide = () => {
    stopPreview();
    setPreviewing(false);
    setStatus("Preview off.");
  };

  return (
    <section class="widget-embed" aria-labelledby="widget-embed-heading">
      <h3 id="widget-embed-heading" tabIndex={-1} ref={heading}>
        Website widget: {k.name}
      </h3>
      <p>Paste this where the widget should appear, on a page of an allowed origin:</p>
      <label for="widget-snippet" class="visually-hidden">
        Embed snippet
      </label>
      <textarea id="widget-snippet" class="snippet" readOnly rows={3} value={snippet} spellcheck={false} />
      <div class="row">
        <button type="button" onClick={copy}>
          Copy snippet
        </button>
        {canPreview ? (
          previewing ? (
            <button type="button" onClick={hide}>
              Stop preview
            </button>
          ) : (
            <button type="button" onClick={show}>
              Preview
            </button>
          )
        ) : userTokens ? (
          <p class="hint">No preview: this key's visitors need a user token signed by your site's server.</p>
        ) : (
          <p class="hint">
            Add <code>{origin}</code> to allowed origins to preview here.
          </p>
        )}
        <button type="button" class="link" onClick={onClose}>
          Close
        </button>
      </div>
      <p class="status" role="status">
        {status}
      </p>
    </section>
  );
}
