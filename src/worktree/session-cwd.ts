/** The folder a session runs in, from its header line (pi runs a resumed session where it started). */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

const HEADER_MAX_BYTES = 64 * 1024;

export function sessionHeaderCwd(sessionFile: string): string | undefined {
  let fd: number | undefined;
  try {
    // Our own state file: never through a link, never blocking on a FIFO (src/shared/state-file.ts's rules).
    fd = openSync(sessionFile, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(HEADER_MAX_BYTES);
    const read = readSync(fd, buffer, 0, HEADER_MAX_BYTES, 0);
    const firstLine = buffer.subarray(0, read).toString("utf8").split("\n", 1)[0] ?? "";
    const header = (JSON.parse(firstLine) as { type?: unknown; cwd?: unknown });
    return header.type === "session" && typeof header.cwd === "string" ? header.cwd : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
