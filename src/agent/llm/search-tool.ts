/**
 * Agentic mode: the model may search the knowledge base itself with a `search` tool, at most
 * `maxSearchCalls` times per reply. Every passage it is given — the first search's, then each
 * call's — joins one numbered list (`PassageList`), so a `[n]` anywhere in the final text names
 * one passage and the citation filter (citations.ts) maps it to the reply's `sources`. A passage
 * found twice keeps its first number. Each call is a span (`agent.search_tool`, the knowledge
 * search under it); its query is never recorded.
 */
import { isStepCount, type PrepareStepFunction, type StopCondition, type ToolSet, tool } from "ai";
import { z } from "zod";
import { inSpan, NOOP_TRACE, type Trace } from "../../tracing/index.ts";
import type { Passage } from "./passages.ts";
import { passageBlock } from "./prompt.ts";

/** The passages the model was given this reply, numbered from 1 in the order it got them. */
export class PassageList {
  readonly passages: Passage[] = [];
  /** `urls[i]` is the document of passage i+1: the citation filter reads it as it grows. */
  readonly urls: string[] = [];
  private readonly numbers = new Map<string, number>();

  constructor(initial: Passage[] = []) {
    this.add(initial);
  }

  /** Adds the passages not yet in the list; returns each one's number (new or earlier). */
  add(found: Passage[]): number[] {
    return found.map((p) => {
      const key = `${p.url}\n${p.heading}\n${p.content}`;
      let n = this.numbers.get(key);
      if (n === undefined) {
        n = this.passages.push(p);
        this.urls.push(p.url);
        this.numbers.set(key, n);
      }
      return n;
    });
  }
}

export interface SearchToolOptions {
  list: PassageList;
  maxCalls: number;
  /** One knowledge search (the same as the first one: passages.ts), under `trace`. */
  search: (query: string, trace: Trace) => Promise<Passage[]>;
  trace?: Trace | undefined;
}

/** What streamText needs for the loop: the tool, when to stop, and no tool once the calls are spent. */
export interface ToolLoop {
  tools: ToolSet;
  stopWhen: StopCondition<ToolSet>;
  prepareStep: PrepareStepFunction<ToolSet>;
  /** Calls made so far (a retried reply keeps counting: the limit is per reply). */
  readonly calls: number;
}

const LIMIT_REACHED = "The search limit for this reply is reached. Answer from the passages you already have.";
const NOTHING_FOUND = "No passage in the knowledge base matches this query.";

export function searchTool({ list, maxCalls, search, trace = NOOP_TRACE }: SearchToolOptions): ToolLoop {
  let calls = 0;
  const tools: ToolSet = {
    search: tool({
      description:
        "Search the knowledge base. Returns numbered passages (title, URL, text) to answer from and cite as [n].",
      inputSchema: z.object({
        query: z.string().min(1).max(500).describe("What to look for, as a standalone search query"),
      }),
      execute: async ({ query }) => {
        // Counted before the search: calls of one step run side by side.
        if (calls >= maxCalls) return LIMIT_REACHED;
        const call = ++calls;
        return inSpan(
          trace,
          "agent.search_tool",
          async (span) => {
            const found = await search(query, span.trace);
            const before = list.passages.length;
            const numbers = list.add(found);
            span.set({ "parley.search.hits": found.length, "parley.search.new": list.passages.length - before });
            if (numbers.length === 0) return NOTHING_FOUND;
            return numbers.map((n) => passageBlock(list.passages[n - 1]!, n)).join("\n\n");
          },
          { "parley.search.call": call, "parley.search.max_calls": maxCalls },
        );
      },
    }),
  };
  return {
    tools,
    // N calls take at most N steps, then one to answer: a backstop should a step ignore toolChoice.
    stopWhen: isStepCount(maxCalls + 1),
    // Once the calls are spent the model must answer: the tool stays declared (Anthropic wants
    // tools declared when the messages hold tool calls) but may not be called.
    prepareStep: () => (calls >= maxCalls ? { toolChoice: "none" as const } : {}),
    get calls() {
      return calls;
    },
  };
}
