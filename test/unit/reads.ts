// Work done on a value, counted in reads: objects wrapped in a proxy that
// counts every property got, looked up or listed. A test asserts a bound on
// the count (a few reads per item, never one per item per member) where a
// bound on time would depend on the machine.

export interface ReadCounter {
  /** `value` behind a proxy whose reads are counted; read through it, nothing else changes. */
  wrap<T extends object>(value: T): T;
  /** Reads through every wrapped object so far. */
  reads(): number;
}

export function readCounter(): ReadCounter {
  let reads = 0;
  const handler: ProxyHandler<object> = {
    get: (target, key, receiver) => (reads++, Reflect.get(target, key, receiver)),
    has: (target, key) => (reads++, Reflect.has(target, key)),
    getOwnPropertyDescriptor: (target, key) => (
      reads++,
      Reflect.getOwnPropertyDescriptor(target, key)
    ),
    ownKeys: (target) => (reads++, Reflect.ownKeys(target)),
  };
  return {
    wrap: <T extends object>(value: T) => new Proxy(value, handler) as T,
    reads: () => reads,
  };
}
