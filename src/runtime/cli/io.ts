/** Where a command's output goes, so the CLI and a server running a forwarded command print the same lines. */

/** stdout lines (`out`) and stderr lines (`err`). */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const consoleIo: Io = { out: (l) => console.log(l), err: (l) => console.error(l) };

/** An Io that keeps the output, for sending it back over the admin socket. */
export function bufferIo(): Io & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
}
