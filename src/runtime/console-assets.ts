/**
 * The console's built files (vendor/console/, made by `bun run build:console` and committed),
 * imported as files so `bun build --compile` embeds them; in development each import is the
 * file's path. Bun-only.
 */
import css from "../../vendor/console/console.css" with { type: "file" };
import js from "../../vendor/console/console.js" with { type: "file" };
import html from "../../vendor/console/index.html" with { type: "file" };
import type { ConsoleAssets } from "../app/console.ts";

/** For `createApp({ consoleAssets })`. */
export const consoleAssets: ConsoleAssets = {
  "index.html": () => Bun.file(html),
  "console.js": () => Bun.file(js),
  "console.css": () => Bun.file(css),
};
