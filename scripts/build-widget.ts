/**
 * `bun run build:widget`: bundles the "Ask AI" widget (widget/, no framework) with Bun's own
 * bundler into vendor/widget/widget.js: one minified classic script (IIFE, so the snippet's
 * `document.currentScript` is set), committed so `bun start` and the binary serve it with no
 * build step. tests/widget-bundle.test.ts fails when the committed file differs from what its
 * sources build to, or when it outgrows its budget. `--check` builds in memory and compares.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
export const OUT = join(root, "vendor/widget/widget.js");
/** What a site pays to embed the widget (gzipped). */
export const BUDGET_GZIP = 35 * 1024;

/** The widget's script as the build makes it. */
export async function buildWidget(): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(root, "widget/main.ts")],
    target: "browser",
    format: "iife",
    minify: true,
    tsconfig: join(root, "widget/tsconfig.json"),
  });
  if (!result.success) throw new AggregateError(result.logs, "widget build failed");
  return await result.outputs.find((o) => o.kind === "entry-point")!.text();
}

export const gzipSize = (text: string) => Bun.gzipSync(new TextEncoder().encode(text)).length;

if (import.meta.main) {
  const js = await buildWidget();
  const gz = gzipSize(js);
  console.log(`vendor/widget/widget.js: ${js.length} bytes, ${gz} gzipped (budget ${BUDGET_GZIP})`);
  if (process.argv.includes("--check")) {
    let old = "";
    try {
      old = readFileSync(OUT, "utf8");
    } catch {}
    if (old !== js) {
      console.error("vendor/widget/widget.js differs from its sources: run bun run build:widget");
      process.exit(1);
    }
  } else {
    mkdirSync(join(root, "vendor/widget"), { recursive: true });
    writeFileSync(OUT, js);
  }
  if (gz > BUDGET_GZIP) {
    console.error(`the widget is over its budget: ${gz} > ${BUDGET_GZIP} bytes gzipped`);
    process.exit(1);
  }
}
