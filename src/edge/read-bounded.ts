// A file a user names (render's input, IMAGE_OVERRIDES_FILE), read no further
// than a bound: a regular file, or stdin. A device (/dev/zero), a FIFO or a
// directory is refused before a byte is read; opening does not wait for a
// FIFO's writer; a file that grows past the bound while it is read is refused.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

export type BoundedRead =
  { ok: true; text: string } | { ok: false; why: "not a regular file" | "too large" };

/** The UTF-8 text of `file` ("-": stdin) when it is at most `max` bytes. */
export function readBounded(file: string, max: number): BoundedRead {
  const fd = file === "-" ? 0 : openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (fd !== 0 && !fstatSync(fd).isFile()) return { ok: false, why: "not a regular file" };
    const buffer = Buffer.alloc(max + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length <= max; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > max) return { ok: false, why: "too large" };
    return { ok: true, text: buffer.toString("utf8", 0, length) };
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}
