/** The client's address for the access log: the socket's, or X-Forwarded-For's when proxies are trusted. */

/**
 * With `trustProxy` = N > 0, N proxies each appended the address they received from: the client
 * is the Nth entry from the right (or the leftmost, if there are fewer). A client cannot spoof
 * past a trusted proxy, because entries it sends itself sit further left.
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
