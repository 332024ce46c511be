/**
 * Backups (admin keys): download the store's archive from GET /v1/backup. A link cannot carry the
 * key's Authorization header, so the page fetches it, then saves the body under the server's file
 * name through a blob URL and a temporary `<a download>`.
 */
import { useState } from "preact/hooks";
import { request } from "../api.ts";

const FALLBACK_NAME = "parley-backup.parley";

/** The file name of a `content-disposition` header (`filename*=UTF-8''…` first, then `filename="…"`), or the fallback. */
export function fileNameOf(disposition: string | null): string {
  const star = disposition?.match(/filename\*\s*=\s*(?:UTF-8)?''([^;]+)/i)?.[1];
  if (star) {
    try {
      return decodeURIComponent(star.trim());
    } catch {
      // A malformed escape: try the plain parameter.
    }
  }
  const plain = disposition?.match(/filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i);
  return (plain?.[1] ?? plain?.[2])?.trim() || FALLBACK_NAME;
}

/** Saves `blob` as a download named `name`; the blob URL is revoked once the browser has had time to take it. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked at once, some browsers would lose a download they have not started reading yet.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

const size = (bytes: number) =>
  bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function Backups() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [saved, setSaved] = useState("");
  const download = async () => {
    setBusy(true);
    setError("");
    setSaved("");
    try {
      const res = await request("GET", "/v1/backup");
      const name = fileNameOf(res.headers.get("content-disposition"));
      const blob = await res.blob();
      save(blob, name);
      setSaved(`Saved ${name} (${size(blob.size)}).`);
    } catch (e) {
      // fetch's own failure (no answer, or the stream cut) is a TypeError with the browser's terse words.
      setError(
        e instanceof TypeError
          ? `The backup could not be downloaded: the server did not answer.`
          : (e as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="stack">
      <h1>Backups</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <section aria-labelledby="backup-heading">
        <h2 id="backup-heading">Download a backup</h2>
        <p class="hint" id="backup-help">
          A backup is the whole store at one moment (knowledge bases, documents, conversations, feedback, usage and
          keys, as hashes: never their secrets) in one gzip-compressed file, which <code>parley import FILE</code> loads
          into a new, empty store (see Backups in the README).
        </p>
        <p class="row">
          <button type="button" onClick={download} disabled={busy} aria-busy={busy} aria-describedby="backup-help">
            {busy ? "Preparing…" : "Download backup"}
          </button>
          <span role="status">{saved}</span>
        </p>
      </section>
    </div>
  );
}
