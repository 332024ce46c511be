/**
 * What the access log needs about a request, gathered by hooks that run at different stages:
 * when it began, the status our error handler chose (Elysia's after-response hook does not
 * see it), the socket's address and the client's behind trusted proxies. Kept beside the
 * Request, like its id.
 */
const started = new WeakMap<Request, number>();
const statuses = new WeakMap<Request, number>();
const bytes = new WeakMap<Request, number>();
const clients = new WeakMap<Request, string>();

export const markStart = (request: Request) => void started.set(request, performance.now());
export const markStatus = (request: Request, status: number, size?: number) => {
  statuses.set(request, status);
  if (size !== undefined) bytes.set(request, size);
};
/** The socket's address, read when the request arrives (the server may not know it after the answer). */
export const markClient = (request: Request, ip: string | undefined) => void (ip && clients.set(request, ip));
export const socketIp = (request: Request) => clients.get(request);
/** Body bytes of an answer the error handler built, if it built one. */
export const errorBytes = (request: Request) => bytes.get(request);

/** When `markStart` saw the request (performance.now()), for a caller that must not keep the Request. */
export const startOf = (request: Request) => started.get(request);

/** Milliseconds since `markStart`, to 0.1 ms. */
export const elapsedMs = (request: Request): number | undefined => elapsedSince(started.get(request));

/** Milliseconds since `startedAt` (a `startOf` reading), to 0.1 ms. */
export function elapsedSince(startedAt: number | undefined): number | undefined {
  return startedAt === undefined ? undefined : Math.round((performance.now() - startedAt) * 10) / 10;
}

/** The status the client got: the error handler's, else the returned Response's, else `set.status`. */
export function finalStatus(request: Request, response: unknown, setStatus: unknown): number {
  const fromError = statuses.get(request);
  if (fromError !== undefined) return fromError;
  if (response instanceof Response) return response.status;
  return typeof setStatus === "number" ? setStatus : 200;
}

/**
 * The client's address: the socket's, or X-Forwarded-For's when proxies are trusted. With
 * `trustProxy` = N > 0, N proxies each appended the address they received from: the client is
 * the Nth entry from the right (or the leftmost, if there are fewer). A client cannot spoof past
 * a trusted proxy, because entries it sends itself sit further left.
 */
export function clientIp(request: Request, socketIp: string | undefined, trustProxy: number): string | undefined {
  if (trustProxy > 0) {
    const hops = (request.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (hops.length) return hops[Math.max(0, hops.length - trustProxy)];
  }
  return socketIp;
}
