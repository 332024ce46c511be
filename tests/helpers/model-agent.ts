/**
 * Driving the model agent directly (no HTTP): one reply's text, usage and sources, with a trace
 * that records its spans (name, parent, attributes) so tests assert what was traced. Also what a
 * provider request held, in either protocol.
 */
import type { Agent, ChatTurn, Usage } from "../../src/agent/types.ts";
import { DEFAULT_KB_ID } from "../../src/knowledge/index.ts";
import type { ActiveSpan, Attributes, Trace } from "../../src/tracing/index.ts";
import type { Received } from "./fake-provider.ts";

export interface RecordedSpan {
  name: string;
  parent: string | undefined;
  attributes: Attributes;
  ended: boolean;
  failed: boolean;
}

/** A trace that keeps every span started under it, in start order. */
export function recordingTrace(): { trace: Trace; spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  const under = (parent: string | undefined): Trace => ({
    start(name, attributes = {}) {
      const rec: RecordedSpan = { name, parent, attributes: { ...attributes }, ended: false, failed: false };
      spans.push(rec);
      const span: ActiveSpan = {
        trace: under(name),
        set: (a) => void Object.assign(rec.attributes, a),
        rename: (n) => {
          rec.name = n;
        },
        end: (error) => {
          rec.ended = true;
          rec.failed = error !== undefined;
        },
      };
      return span;
    },
    modelTelemetry: () => undefined,
  });
  return { trace: under(undefined), spans };
}

export interface Answer {
  text: string;
  usage: Usage | undefined;
  sources: string[];
}

/** One reply of `agent` from the default knowledge base. */
export async function ask(agent: Agent, message: string, history: ChatTurn[] = [], trace?: Trace): Promise<Answer> {
  const answer: Answer = { text: "", usage: undefined, sources: [] };
  const input = { history, message, signal: new AbortController().signal, knowledgeBaseId: DEFAULT_KB_ID, trace };
  for await (const chunk of agent.respond(input)) {
    if (chunk.type === "token") answer.text += chunk.content;
    else if (chunk.type === "usage") answer.usage = chunk.usage;
    else if (chunk.type === "sources") answer.sources = chunk.sources;
  }
  return answer;
}

const text = (c: unknown): string =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? c.map((p: { text?: string; content?: unknown }) => p.text ?? text(p.content)).join("")
      : "";

/** The system prompt a provider request carried (Anthropic's `system`, OpenAI's first message). */
export function systemOf(r: Received): string {
  return r.body.system !== undefined ? text(r.body.system) : text(r.body.messages[0].content);
}

/** The passages' URLs in a system prompt or a tool result, in their numbered order. */
export const urlsIn = (prompt: string): string[] => [...prompt.matchAll(/^URL: (\S+)$/gm)].map((m) => m[1]!);

/** The text of every message after the system prompt (user turns, tool results), joined. */
export function messagesOf(r: Received): string {
  const messages = r.body.system !== undefined ? r.body.messages : r.body.messages.slice(1);
  return messages.map((m: { content: unknown }) => text(m.content)).join("\n");
}
