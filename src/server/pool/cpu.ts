// The CPU time of the pool's threads. A worker tells its own with each message
// (ownCpuMs: process.threadCpuUsage(), a system call, microseconds); the main
// thread reads a worker's from Linux's /proc only to hold a request that is
// still running to its deadline, since it cannot ask a busy worker
// (docs/adr/0017-worker-pool.md). Where /proc cannot tell, the deadline is
// wall time.
import { readFileSync, readlinkSync } from "node:fs";

/** CPU time (user + system) of the thread `tid` of this process, ms; undefined where /proc cannot tell. */
export function threadCpuMs(tid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    // After the command's ")": state, then 10 fields, then utime and stime in clock ticks (1/100 s).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) the calling thread has taken, ms. */
export function ownCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
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
