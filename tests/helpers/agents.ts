/** Agents with known behaviour, for testing the run and the wire (not stand-ins for the default agent). */
import type { Agent, AgentChunk } from "../../src/agent/types.ts";

export interface ScriptOptions {
  delayMs?: number;
  /** Throw after this many tokens. */
  failAfter?: number;
  /** The final sources (yielded after the tokens). */
  sources?: string[];
  /** The sources so far, yielded before token i (as an agent does that cites as it writes). */
  growing?: Record<number, string[]>;
  /** Waits for `open` before token `before`: the reply is then certainly not over. */
  gate?: { before: number; open: Promise<unknown> };
  /** Wait this long before the first token (to exercise keep-alives). */
  silenceMs?: number;
  /**
   * Counts the tokens the agent has yielded, and is told when its generator has ended (to check
   * that a stopped agent really stops, on that event rather than after a wait).
   */
  yielded?: { count: number; ended?: () => void };
}

export function scriptedAgent(tokens: string[], o: ScriptOptions = {}): Agent {
  return {
    async *respond({ signal }): AsyncIterable<AgentChunk> {
      try {
        if (o.silenceMs) await new Promise((r) => setTimeout(r, o.silenceMs));
        for (const [i, content] of tokens.entries()) {
          if (o.failAfter !== undefined && i === o.failAfter) throw new Error("scripted failure");
          signal.throwIfAborted();
          if (o.gate?.before === i) await o.gate.open;
          if (o.growing?.[i]) yield { type: "sources", sources: o.growing[i] };
          if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
          signal.throwIfAborted(); // a well-behaved agent looks at its signal again after waiting
          if (o.yielded) o.yielded.count++;
          yield { type: "token", content };
        }
        yield { type: "sources", sources: o.sources ?? [] };
      } finally {
        o.yielded?.ended?.();
      }
    },
  };
}

/** Yields its tokens, then waits forever and never looks at its AbortSignal: the worst an agent can do. */
export function stuckAgent(tokens: string[]): Agent {
  return {
    async *respond(): AsyncIterable<AgentChunk> {
      for (const content of tokens) yield { type: "token", content };
      await new Promise(() => {});
    },
  };
}
