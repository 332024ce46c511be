/**
 * A Parley reply as a Responses API `response` object. Nothing new is stored: a response is the
 * stored reply, its id `resp_` + the reply's `msg_…` id suffix (and its one output message keeps
 * the `msg_…` id itself), so GET, DELETE and `previous_response_id` find the reply from the id
 * alone — no table, no migration.
 */
import type { MessageStatus, Usage } from "../contract/events.ts";
import { isId } from "../primitives.ts";
import { type Citation, type CitationStyle, cite } from "./citations.ts";

export const responseIdOf = (messageId: string) => `resp_${messageId.slice("msg_".length)}`;

/** The reply a `resp_…` id names, or null when it names none (an id of another form). */
export function messageIdOf(responseId: string): string | null {
  const id = `msg_${responseId.slice("resp_".length)}`;
  return responseId.startsWith("resp_") && isId("msg", id) ? id : null;
}

/** What a response object is made of: the reply (running, ended or stored) and the request's echo. */
export interface ResponseParts {
  messageId: string;
  createdAt: Date;
  status: MessageStatus;
  content: string;
  sources: string[];
  usage: Usage | null;
  model: string;
  /** Why a failed reply failed, when known (its error event's). */
  error?: { code: string; message: string } | null;
  echo?: Partial<Echo>;
}

/** The request's own settings, sent back as OpenAI does (null or defaults for a stored response read later). */
export interface Echo {
  instructions: string | null;
  max_output_tokens: number | null;
  temperature: number | null;
  top_p: number | null;
  previous_response_id: string | null;
  store: boolean;
}

const STATUS: Record<MessageStatus, "in_progress" | "completed" | "incomplete" | "failed" | "cancelled"> = {
  in_progress: "in_progress",
  completed: "completed",
  length: "incomplete",
  stopped: "cancelled",
  failed: "failed",
};

export function responseUsage(u: Usage | null) {
  const input = u?.input_tokens ?? 0;
  const output = u?.output_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/** A citation as the Responses API's url_citation annotation. */
export const annotationOf = (c: Citation) => ({
  type: "url_citation" as const,
  start_index: c.start,
  end_index: c.end,
  url: c.url,
  title: c.title,
});

/** The `output_text` part: the text the client receives and its url_citation annotations. */
export function outputText(content: string, sources: string[], titles: Map<string, string>, style: CitationStyle) {
  const { text, citations } = cite(content, sources, titles, style);
  const annotations = citations.map(annotationOf);
  return { type: "output_text" as const, text, annotations, logprobs: [] as never[] };
}

export type OutputText = ReturnType<typeof outputText>;

/** The one output message; `part` is absent while nothing is written yet. */
export function outputMessage(
  messageId: string,
  status: "in_progress" | "completed" | "incomplete",
  part?: OutputText,
) {
  return { type: "message" as const, id: messageId, status, role: "assistant" as const, content: part ? [part] : [] };
}

/** The response object; `part` null: no output yet (a stream's first events, a reply failed before its text). */
export function responseOf(r: ResponseParts, part: OutputText | null) {
  const status = STATUS[r.status];
  const echo: Echo = {
    instructions: null,
    max_output_tokens: null,
    temperature: null,
    top_p: null,
    previous_response_id: null,
    store: true,
    ...r.echo,
  };
  const itemStatus = status === "in_progress" ? "in_progress" : status === "completed" ? "completed" : "incomplete";
  return {
    id: responseIdOf(r.messageId),
    object: "response" as const,
    created_at: Math.floor(r.createdAt.getTime() / 1000),
    status,
    background: false,
    error: status === "failed" ? (r.error ?? { code: "server_error", message: "The reply failed." }) : null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" as const } : null,
    ...echo,
    model: r.model,
    output: part ? [outputMessage(r.messageId, itemStatus, part)] : [],
    parallel_tool_calls: false,
    reasoning: { effort: null, summary: null },
    text: { format: { type: "text" as const } },
    tool_choice: "none" as const,
    tools: [] as never[],
    truncation: "disabled" as const,
    usage: status === "in_progress" ? null : responseUsage(r.usage),
    user: null,
    metadata: {},
  };
}

export type ResponseObject = ReturnType<typeof responseOf>;
