/** What the chat feature needs: the guard's and the run's dependencies, plus the registry of live runs. */
import type { GuardDeps } from "../auth/index.ts";
import type { RunDeps, RunRegistry } from "../runs/run.ts";

export interface ChatDeps extends GuardDeps, RunDeps {
  runs: RunRegistry;
}
