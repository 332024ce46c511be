/**
 * The server's environment, validated once at start (@t3-oss/env-core + zod). A bad value
 * stops the process with a message naming the variable; nothing here is ever skipped.
 */
import { createEnv } from "@t3-oss/env-core";
import { z } from "zod";
import { DEFAULT_OPTIONS, type ParleyOptions } from "./options.ts";

const int = (def: number, min = 1) => z.coerce.number().int().min(min).default(def);

export function loadEnv(source: Record<string, string | undefined>) {
  const env = createEnv({
    runtimeEnv: source,
    emptyStringAsUndefined: true,
    server: {
      PORT: z.coerce.number().int().min(0).max(65535).default(3000),
      HOST: z.string().default("0.0.0.0"),
      DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
      DATA_DIR: z.string().default("./data"),
      LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
      MAX_MESSAGE_CHARS: int(DEFAULT_OPTIONS.maxMessageChars),
      MAX_BODY_BYTES: int(DEFAULT_OPTIONS.maxBodyBytes, 1024),
      KEEPALIVE_MS: int(DEFAULT_OPTIONS.keepAliveMs, 100).refine((v) => v < 30_000, "must be below 30000 (the idle timeout)"),
      SHUTDOWN_GRACE_MS: int(10_000, 0),
      DB_POOL_MAX: int(10),
      FREE_RPM: int(DEFAULT_OPTIONS.plans.free.rpm),
      FREE_RPD: int(DEFAULT_OPTIONS.plans.free.rpd),
      PRO_RPM: int(DEFAULT_OPTIONS.plans.pro.rpm),
      PRO_RPD: int(DEFAULT_OPTIONS.plans.pro.rpd),
      RATE_LIMIT: z.enum(["on", "off"]).default("on"),
    },
    onValidationError: (issues) => {
      const lines = issues.map((i) => `  ${i.path?.map(String).join(".") ?? "?"}: ${i.message}`);
      throw new Error(`Invalid environment:\n${lines.join("\n")}`);
    },
  });
  return env;
}

/** The validated environment. */
export type Env = ReturnType<typeof loadEnv>;

export function optionsFromEnv(env: Env): ParleyOptions {
  return {
    maxMessageChars: env.MAX_MESSAGE_CHARS,
    maxBodyBytes: env.MAX_BODY_BYTES,
    keepAliveMs: env.KEEPALIVE_MS,
    plans: { free: { rpm: env.FREE_RPM, rpd: env.FREE_RPD }, pro: { rpm: env.PRO_RPM, rpd: env.PRO_RPD } },
    rateLimit: env.RATE_LIMIT === "on",
  };
}
