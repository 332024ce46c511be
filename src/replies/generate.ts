/**
 * Driving the agent for one run: its chunks become the reply's text, sources and usage. The
 * whole consumption races the run's abort signal (once per run, not per token), so an agent that
 * ignores its signal cannot hold the run, or shutdown, hostage; whatever it yields after that is
 * dropped.
 */
import type { Agent, ChatTurn, GenerationSettings } from "../agent/index.ts";
import type { Usage } from "../contract/events.ts";
import type { Trace } from "../tracing/index.ts";

/** What the agent produced so far (kept when it fails: a stopped reply stores its partial text). */
export interface Generated {
  content: string;
  sources: string[];
  usage: Usage | null;
  /** The agent ended the reply at a local limit (agent/cap.ts): it is stored as `length`. */
  cut?: boolean;
}

/** What the agent is asked. */
export interface GenerateInput {
  history: ChatTurn[];
  message: string;
  knowledgeBaseId: string | null;
  settings?: GenerationSettings;
  trace?: Trace;
}

/** A reported token count as the database can hold it (int4), or null. */
const count = (n: unknown): number | null =>
  Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= 2_147_483_647 ? (n as number) : null;

/**
 * Agent output as the database can hold it and as it is streamed: a string, without NUL
 * (PostgreSQL text rejects it) and without lone surrogates (stored as U+FFFD otherwise), so
 * the streamed tokens always concatenate to exactly the stored reply.
 */
export const storable = (v: unknown): string =>
  String(v ?? "")
    .toWellFormed()
    .replaceAll("\0", "\uFFFD");

/**
 * Feeds the agent's output into `out`, calling `onText` for each piece of text; rejects with the
 * signal's reason when aborted, without waiting for the agent.
 */
export function generate(
  agent: Agent,
  input: GenerateInput,
  signal: AbortSignal,
  out: Generated,
  onText: (text: string) => void,
): Promise<void> {
  const consume = consumeAgent(agent, input, signal, out, onText);
  // One promise settles with whichever comes first, the agent's end or the abort; the other's
  // outcome lands on a settled promise, so it never becomes an unhandled rejection. (A race of
  // two promises, each with a catch, was a dozen more objects per waiting run.)
  return new Promise<void>((resolve, reject) => {
    consume.then(resolve, reject);
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", new RejectOnAbort(signal, reject), { once: true });
  });
}

/** The abort's listener: an object holding what it needs, not closures over this module's scopes. */
class RejectOnAbort implements EventListenerObject {
  constructor(
    private readonly signal: AbortSignal,
    private readonly reject: (reason: unknown) => void,
  ) {}

  handleEvent(): void {
    this.reject(this.signal.reason);
  }
}

async function consumeAgent(
  agent: Agent,
  { history, message, knowledgeBaseId, settings, trace }: GenerateInput,
  signal: AbortSignal,
  out: Generated,
  onText: (text: string) => void,
): Promise<void> {
  for await (const chunk of agent.respond({
    history,
    message,
    knowledgeBaseId,
    signal,
    ...(settings ? { settings } : {}),
    ...(trace ? { trace } : {}),
  })) {
    if (signal.aborted) return; // leaving the loop calls the agent's return()
    if (chunk.type === "token") {
      const text = storable(chunk.content);
      if (!text) continue;
      out.content += text;
      onText(text);
    } else if (chunk.type === "usage") {
      const u = { input_tokens: count(chunk.usage?.input_tokens), output_tokens: count(chunk.usage?.output_tokens) };
      out.usage = u.input_tokens === null && u.output_tokens === null ? null : u;
    } else if (chunk.type === "finish") {
      out.cut = true;
    } else if (Array.isArray(chunk.sources)) {
      out.sources = [...new Set(chunk.sources.filter((u): u is string => typeof u === "string").map(storable))];
    }
  }
}
