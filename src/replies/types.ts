/** What replies/ is built from, and the long-lived objects one `createReplies` shares among its parts. */
import type { Agent } from "../agent/index.ts";
import type { Logger } from "../config/logger.ts";
import type { ParleyOptions } from "../config/options.ts";
import type { Db } from "../db/client.ts";
import type { LeaseKeeper } from "./live-runs.ts";
import type { Notifier } from "./notify.ts";
import type { ReplyStore, ReplyWrite } from "./statements.ts";

export interface RepliesDeps {
  db: Db;
  agent: Agent;
  logger: Logger;
  now: () => number;
  options: Pick<
    ParleyOptions,
    "replyLeaseMs" | "replyFlushMs" | "replyPollMs" | "keepAliveMs" | "replyEventsRetentionS"
  >;
  /** The conversations' write when a reply is created or ends: moves the conversation's `updated_at`. */
  touchConversation: (at: number) => ReplyWrite;
}

/** Built once per `createReplies`, closed by its `close()`. */
export interface Shared {
  store: ReplyStore;
  notifier: Notifier;
  leases: LeaseKeeper;
}
