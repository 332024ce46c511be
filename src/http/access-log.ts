/**
 * What the access log needs about a request, gathered by hooks that run at different stages:
 * when it began, the status our error handler chose (Elysia's after-response hook does not
 * see it) and the key that authenticated it. Kept beside the Request, like its id.
 */
const started = new WeakMap<Request, number>();
const statuses = new WeakMap<Request, number>();

export const markStart = (request: Request) => void started.set(request, performance.now());
export const markStatus = (request: Request, status: number) => void statuses.set(request, status);

/** Milliseconds since `markStart`, to 0.1 ms. */
export function elapsedMs(request: Request): number | undefined {
  const t = started.get(request);
  return t === undefined ? undefined : Math.round((performance.now() - t) * 10) / 10;
}

/** The status the client got: the error handler's, else the returned Response's, else `set.status`. */
export function finalStatus(request: Request, response: unknown, setStatus: unknown): number {
  const fromError = statuses.get(request);
  if (fromError !== undefined) return fromError;
  if (response instanceof Response) return response.status;
  return typeof setStatus === "number" ? setStatus : 200;
}
