/**
 * Moving bytes between the main thread and a worker without copying them
 * when that is safe.
 *
 * A Uint8Array can be moved only by moving its whole ArrayBuffer, so it is
 * moved only when it is the whole buffer and the buffer is not Node's shared
 * pool: small Buffers (from `Buffer.from`, `Buffer.concat`) are views into
 * one 8 KiB pool that other Buffers use too. Node 20 moved such a pool and
 * left every other view on it empty; Node 22 and later refuse the move with a
 * DataCloneError. Anything else is copied into a buffer of its own.
 */

import { isMarkedAsUntransferable } from "node:worker_threads";

/** Bytes that own their whole buffer: `bytes` itself when they already do, else a copy. */
export function owned(bytes: Uint8Array): Uint8Array {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && bytes.buffer instanceof ArrayBuffer && !isMarkedAsUntransferable(bytes.buffer)
    ? bytes
    : copyOf(bytes);
}

/** A copy in a buffer of its own (`Buffer#slice` is a view, not a copy). */
export function copyOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** The transfer list that moves `bytes` (made with `owned`), or none. */
export function moving(bytes: Uint8Array | null): ArrayBuffer[] {
  return bytes === null ? [] : [bytes.buffer as ArrayBuffer];
}
