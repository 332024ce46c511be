/**
 * A small tmpfs for tests about a full disk: a real file system that fills in milliseconds.
 * Mounting needs root (CAP_SYS_ADMIN); `mountTmpfs` says why it cannot, and the test skips.
 * Lazily unmounted (`umount -l`: a process still holding files there does not block it) by
 * `unmount()` and, failing that, when the test process exits.
 */
import { mkdtempSync, rmdirSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Tmpfs {
  dir: string;
  /** Bytes free now. */
  free(): number;
  /** Writes a file of zeros named `name` so that `leave` bytes stay free (about: whole pages). */
  fillTo(leave: number, name: string): void;
  unmount(): void;
}

/** A fresh tmpfs of `mib` MiB, or the reason none can be mounted here. */
export function mountTmpfs(mib: number): Tmpfs | string {
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  const dir = mkdtempSync(join(tmpdir(), "parley-tmpfs-"));
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${mib}m,mode=0700`, "tmpfs", dir]);
  if (mount.exitCode !== 0) {
    rmdirSync(dir);
    return `mount -t tmpfs failed: ${mount.stderr.toString().trim()}`;
  }
  let mounted = true;
  const unmount = () => {
    if (!mounted) return;
    mounted = false;
    Bun.spawnSync(["umount", "-l", dir]);
    rmdirSync(dir);
  };
  process.on("exit", unmount);
  const free = () => {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  };
  return {
    dir,
    free,
    fillTo(leave, name) {
      writeFileSync(join(dir, name), new Uint8Array(Math.max(0, free() - leave)));
    },
    unmount,
  };
}
