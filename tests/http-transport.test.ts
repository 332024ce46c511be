/**
 * Answers at the transport's edge, over a real socket with raw HTTP/1.1:
 * methods Elysia's router does not route (PROPFIND, TRACE, QUERY, PURGE…) on a path that
 * exists answer the JSON 405 with Allow, like GET on POST /v1/chat does; elsewhere the JSON 404.
 * What Bun's HTTP parser answers itself is pinned too, so docs/api.md stays true: a method token
 * it does not know (FOO, lowercase get) closes the connection without an answer, and an HTTP
 * version other than 1.0/1.1 gets Bun's plain 505.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createLogger } from "../src/config/logger.ts";
import { harness, listen, testApp } from "./helpers/app.ts";

setDefaultTimeout(30_000); // per file: see bunfig.toml

const h = await harness();
const server = listen(testApp({ store: h.store, logger: createLogger("silent") }));

/** One raw request; the whole answer as text, or "" when the server closed without one. */
function raw(requestLine: string): Promise<string> {
  return new Promise((resolve) => {
    let answer = "";
    const done = () => resolve(answer);
    void Bun.connect({
      hostname: "127.0.0.1",
      port: server.port,
      socket: {
        open: (s) => void s.write(`${requestLine}\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
        data: (_s, chunk) => {
          answer += new TextDecoder().decode(chunk);
        },
        close: done,
        error: done,
      },
    });
  });
}
const parse = (answer: string) => {
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  const status = Number(head.split(" ")[1]);
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, "im").exec(head)?.[1]?.trim();
  return { status, header, body };
};

describe("transport-level answers", () => {
  test.each([
    ["PROPFIND", "/v1/chat", "POST"],
    ["TRACE", "/v1/chat", "POST"],
    ["QUERY", "/v1/conversations", "GET"],
    ["PURGE", "/v1/conversations/conv_01jd5x8r7mf6sb1b2k3n4p5q6r", "GET, DELETE"],
    ["LINK", "/v1/chat/", "POST"],
  ])("%s %s → JSON 405, Allow: %s", async (method, path, allow) => {
    const r = parse(await raw(`${method} ${path} HTTP/1.1`));
    expect(r.status, r.body).toBe(405);
    expect(r.header("allow")).toBe(allow);
    const body = JSON.parse(r.body) as { error: { code: string }; request_id: string };
    expect(body.error.code).toBe("method_not_allowed");
    expect(body.request_id).toBe(r.header("x-request-id")!);
  });

  test("an unusual method on a path that does not exist → JSON 404", async () => {
    const r = parse(await raw("PROPFIND /v1/nope HTTP/1.1"));
    expect(r.status, r.body).toBe(404);
    expect((JSON.parse(r.body) as { error: { code: string } }).error.code).toBe("not_found");
  });

  test("Bun's own answers (documented, not ours to shape): unknown method tokens close, other HTTP versions 505", async () => {
    expect(await raw("FOO /v1/chat HTTP/1.1")).toBe("");
    expect(await raw("get /v1/chat HTTP/1.1")).toBe("");
    expect(parse(await raw("GET /v1/chat HTTP/2.0")).status).toBe(505);
  });
});
