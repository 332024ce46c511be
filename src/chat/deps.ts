/** What the chat feature needs: the guard's dependencies, a logger, and the replies. */
import type { GuardDeps } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Replies } from "../replies/index.ts";

export interface ChatDeps extends GuardDeps {
  logger: Logger;
  replies: Replies;
}
