import { describe, expect, test } from "bun:test";
import { KeepAlive } from "../../src/http/keep-alive.ts";
import { sseResponse } from "../../src/http/sse.ts";

const read = async (res: Response) => {
  const reader = res.body!.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return new TextDecoder().decode(value);
};

describe("sseResponse", () => {
  test("with nothing to replay, the first bytes (and so the headers) go out at once, not after a keep-alive", async () => {
    const res = sseResponse({ subscribe: () => () => {} }, { keepAlive: new KeepAlive(60_000), isLast: () => false });
    expect(await read(res)).toBe(": open\n\n");
  });

  test("with events to replay, the first bytes are the first event", async () => {
    const res = sseResponse<number>(
      { subscribe: (listener) => (listener(1), () => {}) },
      { keepAlive: new KeepAlive(60_000), isLast: () => false, encode: (n) => ({ id: n, data: { n } }) },
    );
    expect(await read(res)).toBe('id: 1\ndata: {"n":1}\n\n');
  });
});
