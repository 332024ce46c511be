/**
 * The /docs reference UI's script (vendor/scalar/standalone.js), imported as a file so
 * `bun build --compile` embeds it; in development the import is the file's path. Bun-only.
 */
import scalarScript from "../../vendor/scalar/standalone.js" with { type: "file" };

/** For `createApp({ docsScript })`. */
export const docsScript = () => Bun.file(scalarScript);
