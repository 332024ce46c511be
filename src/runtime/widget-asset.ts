/**
 * The widget's built script (vendor/widget/widget.js, made by `bun run build:widget` and
 * committed), imported as a file so `bun build --compile` embeds it; in development the import
 * is the file's path. Bun-only.
 */
import js from "../../vendor/widget/widget.js" with { type: "file" };
import type { WidgetScript } from "../app/widget.ts";

/** For `createApp({ widgetScript })`. */
export const widgetScript: WidgetScript = () => Bun.file(js);
