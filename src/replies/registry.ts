/** The runs alive in this process: stop and resume find them by id, shutdown drains them. */
import type { ApiError } from "../http/errors.ts";
import { withTimeout } from "../timeout.ts";
import type { Run } from "./run.ts";
import { shuttingDown } from "./terminal.ts";

/** The runs alive in this process, so shutdown can let them finish (or end them). */
export class RunRegistry {
  private readonly runs = new Map<string, Run>();
  private cutOff: ApiError | null = null;

  /** One function for every run, not a closure per run. */
  private readonly forget = (run: Run) => void this.runs.delete(run.id);

  track(run: Run): Run {
    if (run.finished) return run;
    this.runs.set(run.id, run);
    run.ended = this.forget;
    // A request already inside the handler when shutdown cut runs off still gets cut off.
    if (this.cutOff) run.cancel(this.cutOff);
    return run;
  }

  /** The run of reply `id`, if it is generated in this process. */
  get(id: string): Run | undefined {
    return this.runs.get(id);
  }

  all(): Run[] {
    return [...this.runs.values()];
  }

  get size(): number {
    return this.runs.size;
  }

  /**
   * Waits up to `graceMs` for runs to finish, then cancels the rest and gives them up to
   * `storeMs` to store what they have (a cancelled run ends at once; only its write remains).
   */
  async drain(graceMs: number, storeMs = 5_000): Promise<void> {
    if (await this.settled(graceMs)) return;
    this.cutOff = shuttingDown();
    for (const run of this.runs.values()) run.cancel(this.cutOff);
    await this.settled(storeMs);
  }

  /** Whether every run (including ones started meanwhile) finished within `ms`. */
  private async settled(ms: number): Promise<boolean> {
    const all = async (): Promise<true> => {
      while (this.runs.size) await Promise.all([...this.runs.values()].map((r) => r.done));
      return true;
    };
    return withTimeout(all(), ms, false);
  }
}
