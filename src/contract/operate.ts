/** Wire types of what operators read: usage by day, and feedback on replies. */

/** One UTC day of a key's usage. */
export interface UsageDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  requests: number;
  chat_turns: number;
  input_tokens: number;
  output_tokens: number;
  refusals: number;
}

/** Usage totals over a range. */
export type UsageTotals = Omit<UsageDay, "date">;

/** One key's usage, day by day (every day of the range, zeros included). */
export interface KeyUsage {
  key_id: string;
  key_name: string;
  days: UsageDay[];
  totals: UsageTotals;
}

/** GET /v1/usage. */
export interface UsageReport {
  object: "usage";
  from: string;
  to: string;
  data: KeyUsage[];
}

export const RATINGS = ["up", "down"] as const;
export type Rating = (typeof RATINGS)[number];

/** A rating of one assistant message. */
export interface Feedback {
  rating: Rating;
  comment: string | null;
  updated_at: string;
}

/** An item of GET /v1/feedback: the rating with what a docs team needs to act on it. */
export interface FeedbackItem extends Feedback {
  message_id: string;
  conversation_id: string;
  key_id: string;
  /** The user message the reply answered (null when it is gone). */
  question: string | null;
  answer: string;
  sources: string[];
  reply_status: string;
  reply_created_at: string;
}

export interface FeedbackList {
  data: FeedbackItem[];
  pagination: { has_more: boolean; next_cursor: string | null };
}
