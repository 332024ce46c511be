/**
 * GET /metrics in the Prometheus text format. Access needs `Authorization: Bearer <METRICS_TOKEN>`
 * (compared in constant time); without a configured token the route does not exist (404), so a
 * server never exposes metrics by accident. Chosen over a second port: one listener to secure,
 * and it works unchanged behind any proxy and on Deno.
 */
import { Elysia } from "elysia";
import type { Metrics } from "../metrics/index.ts";

const encoder = new TextEncoder();

function sameSecret(given: string, expected: string): boolean {
  const a = encoder.encode(given);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i]!;
  return diff === 0;
}

export function metricsRoute(metrics: Metrics | undefined, token: string | undefined) {
  const app = new Elysia();
  if (!metrics || !token) return app;
  return app.get(
    "/metrics",
    async ({ request }) => {
      const header = request.headers.get("authorization") ?? "";
      if (!header.startsWith("Bearer ") || !sameSecret(header.slice(7), token)) {
        return new Response("unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n", {
          status: 401,
          headers: { "www-authenticate": 'Bearer realm="metrics"', "content-type": "text/plain; charset=utf-8" },
        });
      }
      return new Response(await metrics.registry.metrics(), {
        headers: { "content-type": metrics.registry.contentType },
      });
    },
    { detail: { hide: true } },
  );
}
