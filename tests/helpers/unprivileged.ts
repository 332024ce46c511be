/**
 * A non-root user for tests about file permissions (root bypasses them). Created once with
 * `useradd` when the tests run as root; undefined (the test skips) when not root or when the
 * user cannot be made. Commands run as it through `setpriv`.
 */
import { chownSync } from "node:fs";

export const TEST_USER = "parleytest";

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
  /** `cmd` as this user (no supplementary groups). */
  run(cmd: string[]): string[];
  /** Hands `path` to this user. */
  own(path: string): void;
}

function lookup(): { uid: number; gid: number } | undefined {
  const uid = Bun.spawnSync(["id", "-u", TEST_USER]);
  const gid = Bun.spawnSync(["id", "-g", TEST_USER]);
  if (uid.exitCode !== 0 || gid.exitCode !== 0) return undefined;
  return { uid: Number(uid.stdout.toString()), gid: Number(gid.stdout.toString()) };
}

/** The test user, created if missing; undefined when that is impossible here. */
export function testUser(): TestUser | undefined {
  if (process.getuid?.() !== 0 || !Bun.which("setpriv")) return undefined;
  let ids = lookup();
  if (!ids && Bun.which("useradd")) {
    Bun.spawnSync(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", TEST_USER]);
    ids = lookup();
  }
  if (!ids) return undefined;
  const { uid, gid } = ids;
  return {
    name: TEST_USER,
    uid,
    gid,
    run: (cmd) => ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", ...cmd],
    own: (path) => chownSync(path, uid, gid),
  };
}
