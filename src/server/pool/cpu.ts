// The CPU time of one thread of this process, from Linux's /proc: Node.js's
// process.threadCpuUsage() reads only the calling thread, and the main thread
// must read a worker's to hold it to its deadline (docs/adr/0017-worker-pool.md).
// Elsewhere it is undefined, and the pool falls back to wall time.
import { readFileSync, readlinkSync } from "node:fs";

/** Milliseconds of CPU (user + system) in a /proc `stat` file; undefined where it cannot be read. */
function cpuMsIn(statFile: string): number | undefined {
  try {
    const stat = readFileSync(statFile, "utf8");
    // After the command's ")": state, then 10 fields, then utime and stime in clock ticks (1/100 s).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time of the thread `tid` of this process, ms. */
export function threadCpuMs(tid: number): number | undefined {
  return cpuMsIn(`/proc/self/task/${tid}/stat`);
}

/** CPU time of the calling thread, ms. */
export function ownCpuMs(): number | undefined {
  return cpuMsIn("/proc/thread-self/stat");
}

/** The calling thread's id, for another thread to read its CPU time (threadCpuMs). */
export function ownThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}
