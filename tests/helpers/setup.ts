/**
 * Preloaded before every test file (bunfig.toml). Bun evaluates a helper module once per run, so
 * a hook written at a helper's top level would only reach the first file that imports it; hooks
 * here reach every file.
 */
import { afterAll, afterEach, beforeAll } from "bun:test";
import { closeApps, stopListening } from "./app.ts";
import { killProcesses, templateDataDir } from "./process.ts";
import { testStore } from "./store.ts";

// The run's shared store is opened before the first file's tests (once: later files find it
// open), so its cold start (PGlite's initdb: seconds, far more on a loaded machine) is not
// charged to whichever test happens to ask for it first. Pure unit tests (tests/unit/) skip it.
// Likewise the process lane's template data folder (helpers/process.ts).
beforeAll(async () => {
  if (!Bun.main.includes("/tests/unit/")) await testStore();
  if (Bun.main.includes("/tests/process/")) await templateDataDir();
}, 600_000);

// A failed case must not leave its processes holding the folder (or the port) the next case uses.
afterEach(killProcesses);
afterAll(stopListening);
afterAll(closeApps);
