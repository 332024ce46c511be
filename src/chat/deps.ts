/** What the chat feature needs: the admission's dependencies, a logger, and the replies. */
import type { AdmissionDeps } from "../auth/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Replies } from "../replies/index.ts";

export interface ChatDeps extends AdmissionDeps {
  logger: Logger;
  replies: Replies;
}
