/**
 * The console's only way to the server: the public /v1 HTTP API with the pasted key as a Bearer
 * token. The key lives in sessionStorage (this tab, until it closes): never a URL, cookie or log.
 */
const KEY = "parley.console.key";

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  set: (key: string) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.clear(),
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The offending field of a 400 (`allowed_origins.0`, say), so a form can show it beside that field. */
    readonly param?: string,
  ) {
    super(message);
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${session.key() ?? ""}`, ...extra };
}

/** One request; JSON in and out; a JSON error body becomes an ApiError with its code and message. */
export async function request(method: string, path: string, body?: unknown, extra?: Record<string, string>) {
  const init: RequestInit = { method, headers: headers(extra) };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await fetch(path, init);
  if (!res.ok) await fail(res);
  return res;
}

export async function fail(res: Response): Promise<never> {
  const body = await res.json().catch(() => null);
  const err = body?.error;
  throw new ApiError(res.status, err?.code ?? "http_error", err?.message ?? `HTTP ${res.status}`, err?.param);
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(method, path, body);
  return res.status === 204 ? (undefined as T) : ((await res.json()) as T);
}

export interface SseEvent {
  id: number;
  data: any;
}

/** The events of a `text/event-stream` body (`id:` + `data:` per event; `: ping` comments skipped). */
export async function* readSse(res: Response): AsyncGenerator<SseEvent> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, "\n");
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let id = 0;
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) id = Number(line.slice(3).trim());
        else if (line.startsWith("data:")) data += line.slice(5).trimStart();
      }
      if (data) yield { id, data: JSON.parse(data) };
      cut = buffer.indexOf("\n\n");
    }
  }
}

/**
 * Checks the key (any /v1 read: 401 for a bad one) and whether it may use the admin API: a chat
 * key hears 403 there (404 on a server without the admin API). No endpoint states a key's role,
 * so this probe is the one request the console expects to be refused.
 */
export async function isAdmin(): Promise<boolean> {
  const own = await fetch("/v1/conversations?limit=1", { headers: headers() });
  if (!own.ok) await fail(own);
  const res = await fetch("/v1/keys?limit=1", { headers: headers() });
  if (res.status === 403 || res.status === 404) return false;
  if (!res.ok) await fail(res);
  return true;
}

export const qs = (params: Record<string, string | number | undefined | null>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
};
