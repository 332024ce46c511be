/** Uploads to a knowledge base: drop files (or pick them), one multipart request with a progress bar and per-file results. */
import { useState } from "preact/hooks";
import { session } from "../api.ts";

interface UploadResult {
  file?: string;
  line?: number;
  status: string;
  error?: { message: string };
}

/** Drag and drop (or pick) files: one multipart request with a progress bar (XHR reports upload progress; fetch does not). */
export function Upload({ kb, onDone }: { kb: string; onDone: () => void }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [results, setResults] = useState<UploadResult[]>([]);
  const [over, setOver] = useState(false);
  const [error, setError] = useState("");
  const send = (files: FileList | File[]) => {
    const list = [...files];
    if (!list.length) return;
    const form = new FormData();
    for (const f of list) form.append("files", f, f.name);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/v1/knowledge_bases/${kb}/documents`);
    xhr.setRequestHeader("authorization", `Bearer ${session.key()}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && setProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onload = () => {
      setProgress(100);
      const body = JSON.parse(xhr.responseText || "null");
      if (xhr.status >= 400) setError(body?.error?.message ?? `HTTP ${xhr.status}`);
      else setResults(body?.results ?? [{ file: list[0]!.name, status: xhr.status === 201 ? "created" : "replaced" }]);
      onDone();
    };
    xhr.onerror = () => setError("The upload failed (network).");
    setError("");
    setResults([]);
    setProgress(0);
    xhr.send(form);
  };
  return (
    <fieldset
      class={`dropzone${over ? " over" : ""}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        send(e.dataTransfer?.files ?? []);
      }}
    >
      <legend>Upload files</legend>
      <label for="files">Drop .md, .txt, .html or .jsonl files here, or choose them:</label>
      <input
        id="files"
        type="file"
        multiple
        accept=".md,.markdown,.txt,.html,.htm,.jsonl"
        onChange={(e) => send(e.currentTarget.files ?? [])}
      />
      {progress !== null && (
        <progress max={100} value={progress} aria-label="Upload progress">
          {progress}%
        </progress>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {results.length > 0 && (
        <ul class="results" aria-label="Upload results">
          {results.map((r) => (
            <li class={r.status}>
              {r.file ?? ""}
              {r.line ? `:${r.line}` : ""} — {r.status}
              {r.error ? `: ${r.error.message}` : ""}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
