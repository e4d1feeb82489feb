// The store the services get, with each write transaction timed: how long writes take is how long
// every request that changes something waits, on either backend.
import { performance } from 'node:perf_hooks';
import type { Store, WriteOptions, WriteTx } from '../store/store.js';

export type ObserveWrite = (wait: 'durable' | 'applied', seconds: number) => void;

/** `store` with the time of each write (until it resolves or fails) reported to `observe`. */
export function timedWrites(store: Store, observe: ObserveWrite): Store {
  const timed: Store = {
    get kind() {
      return store.kind;
    },
    get masterKeyCheck() {
      return store.masterKeyCheck;
    },
    read: (fn) => store.read(fn),
    async write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts?: WriteOptions): Promise<R> {
      const started = performance.now();
      try {
        return await store.write(fn, opts);
      } finally {
        observe(opts?.wait ?? 'durable', (performance.now() - started) / 1000);
      }
    },
    compact: () => store.compact(),
    close: () => store.close(),
    failure: () => store.failure(),
    health: () => store.health(),
    claimDue: (keys, claim) => store.claimDue(keys, claim),
    publish: (topic) => store.publish(topic),
    subscribe: (topic, listener) => store.subscribe(topic, listener),
  };
  // (optional: a store without its own counters leaves the rate limits to count in memory)
  if (store.openRateCounters) timed.openRateCounters = (opts) => store.openRateCounters!(opts);
  return timed;
}
