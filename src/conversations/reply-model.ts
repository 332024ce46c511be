/** Wire schemas of the reply routes (events, stop). */
import { type Static, t } from "elysia";
import type { Reply as WireReply } from "../contract/resources.ts";
import type { MessageRow } from "../db/schema.ts";
import type { Same } from "../http/schema-contract.ts";
import { Message, toMessage } from "./model.ts";

export const ReplyParams = t.Object({
  id: t.String({ description: "conv_… identifier of the conversation", examples: ["conv_01jd5x8r7mf6sb1b2k3n4p5q6r"] }),
  message_id: t.String({
    description: "msg_… identifier of an assistant message",
    examples: ["msg_01jd5x8r7mf6sb1b2k3n4p5q6s"],
  }),
});

export const AFTER_MESSAGE =
  "Invalid 'after' (query) or 'Last-Event-ID' (header): it must be an event id, a non-negative integer.";

/** A reply as POST …/stop answers it: the message, with its conversation. */
export const Reply = t.Composite([t.Object({ conversation_id: t.String() }), Message]);

export const toReply = (m: MessageRow) => ({ conversation_id: m.conversationId, ...toMessage(m) });

true satisfies Same<Static<typeof Reply>, WireReply>;
