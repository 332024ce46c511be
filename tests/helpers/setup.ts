/**
 * Preloaded before every test file (bunfig.toml). Bun evaluates a helper module once per run, so
 * a hook written at a helper's top level would only reach the first file that imports it; hooks
 * here reach every file.
 */
import { afterAll, afterEach } from "bun:test";
import { closeApps, stopListening } from "./app.ts";
import { killProcesses } from "./process.ts";

// A failed case must not leave its processes holding the folder (or the port) the next case uses.
afterEach(killProcesses);
afterAll(stopListening);
afterAll(closeApps);
