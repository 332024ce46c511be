/**
 * What analytics/ reads the questions from: one row per ended reply, with the question it
 * answered, the question's weighted terms (kept when the text is dropped by the retention, so
 * counts and topics stay) and its topic; and the topics, each the running sum of its questions'
 * term vectors. analytics/ writes both (a sweep step copies ended replies in).
 */
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, real, text, timestamp } from "drizzle-orm/pg-core";
import { CERTAINTIES } from "../contract/analytics.ts";
// A cycle, but only through `references` callbacks, which run after both modules have loaded.
import { messages } from "./schema.ts";

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

const certaintyIn = (column: unknown) => sql`${column} in (${sql.raw(CERTAINTIES.map((c) => `'${c}'`).join(", "))})`;

/** A question's or topic's terms: lexeme → weight (the knowledge base's IDF; framing words weigh 0). */
export type TermWeights = Record<string, number>;

export const analyticsTopics = pgTable(
  "analytics_topics",
  {
    id: text("id").primaryKey(),
    kbId: text("kb_id"),
    /** The sum of its questions' term vectors (the heaviest terms only, analytics/topics.ts). */
    centroid: jsonb("centroid").$type<TermWeights>().notNull(),
    /** The centroid's heaviest terms: the GIN-indexed way a new question finds its candidate topics. */
    terms: text("terms").array().notNull(),
    /**
     * With hybrid search on: the sum of its questions' unit embeddings, and their model (a
     * question is compared only with topics of its own model: analytics/meaning.ts).
     */
    embedding: real("embedding").array(),
    embeddingModel: text("embedding_model"),
    /** Questions assigned to it, ever (the period's size is counted from analytics_questions). */
    members: integer("members").notNull().default(0),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [index("analytics_topics_terms_idx").using("gin", t.terms), index("analytics_topics_kb_idx").on(t.kbId)],
);

export const analyticsQuestions = pgTable(
  "analytics_questions",
  {
    /** The reply (an assistant message); gone with its conversation. */
    messageId: text("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    conversationId: text("conversation_id").notNull(),
    keyId: text("key_id").notNull(),
    kbId: text("kb_id"),
    /** The user's question; null once older than ANALYTICS_RETENTION_DAYS. */
    question: text("question"),
    terms: jsonb("terms").$type<TermWeights>().notNull(),
    certainty: text("certainty", { enum: CERTAINTIES }),
    sources: jsonb("sources").$type<string[]>().notNull().default([]),
    topicId: text("topic_id")
      .notNull()
      .references(() => analyticsTopics.id),
    /** When the question was asked. */
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    index("analytics_questions_created_idx").on(t.createdAt.desc().nullsFirst(), t.messageId.desc().nullsFirst()),
    index("analytics_questions_kb_created_idx").on(t.kbId, t.createdAt),
    index("analytics_questions_topic_idx").on(t.topicId, t.createdAt),
    index("analytics_questions_retained_idx").on(t.createdAt).where(sql`${t.question} is not null`),
    // How many of a knowledge base's questions hold a term (analytics/vectors.ts: questions' own IDF).
    index("analytics_questions_terms_idx").using("gin", t.terms),
    check("analytics_questions_certainty_ck", certaintyIn(t.certainty)),
  ],
);
