import { describe, expect, test } from "bun:test";
import { SseScanner } from "../../src/http/sse-scan.ts";

const frames = [
  ": open\n\n",
  'id: 1\ndata: {"type":"start","id":"msg_1"}\n\n',
  'id: 2\ndata: {"type":"token","content":"data: {\\"type\\":\\"end\\"} ünïcode 中文"}\n\n',
  ": keep-alive\n\n",
  'id: 3\ndata: {"type":"token","content":"x"}\n\n',
  `id: 4\ndata: {"type":"end","status":"stopped","usage":{"note":"${"é".repeat(3000)}"}}\n\n`,
];
const bytes = new TextEncoder().encode(frames.join(""));

/** Feeds `bytes` cut at the given offsets. */
function scan(cuts: number[]): SseScanner {
  const s = new SseScanner();
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    s.push(bytes.subarray(at, cut));
    at = cut;
  }
  return s;
}

describe("SseScanner", () => {
  test("counts data frames and reads the terminal status, in one chunk", () => {
    const s = scan([]);
    expect(s.events).toBe(4);
    expect(s.status).toBe("stopped");
  });

  test("the same whatever the chunking (every single cut, and random multi-cuts)", () => {
    for (let cut = 0; cut <= bytes.length; cut += 7) {
      const s = scan([cut]);
      expect([s.events, s.status, cut]).toEqual([4, "stopped", cut]);
    }
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 200; run++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 20) }, () =>
        Math.floor(random() * bytes.length),
      ).sort((a, b) => a - b);
      const s = scan(cuts);
      expect([s.events, s.status, cuts]).toEqual([4, "stopped", cuts]);
    }
  });

  test("error events name their code; a token quoting an end event is not terminal", () => {
    const s = new SseScanner();
    s.push(new TextEncoder().encode('id: 1\ndata: {"type":"token","content":"{\\"type\\":\\"end\\"}"}\n\n'));
    expect(s.status).toBeUndefined();
    s.push(new TextEncoder().encode('id: 2\ndata: {"type":"error","error":{"code":"generation_failed"}}\n\n'));
    expect([s.events, s.status]).toEqual([2, "failed:generation_failed"]);
  });

  test("a frame with two data lines is one event; comments are none", () => {
    const s = new SseScanner();
    s.push(new TextEncoder().encode(": ping\n\ndata: a\ndata: b\n\n: ping\n\n"));
    expect(s.events).toBe(1);
  });
});
