// The listeners of Store.subscribe within one process. The JSON-file store has nothing more (one
// daemon per data folder); the PostgreSQL store also carries each message to the other daemons.
import type { StoreTopic } from './store.js';

export class LocalTopics {
  private readonly listeners = new Map<StoreTopic, Set<() => void>>();

  subscribe(topic: StoreTopic, listener: () => void): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Runs `topic`'s listeners, which deal with their own errors (a message is no request to fail). */
  emit(topic: StoreTopic): void {
    for (const listener of this.listeners.get(topic) ?? []) listener();
  }

  /** Runs every topic's listeners: a message may have been missed. */
  emitAll(): void {
    for (const topic of this.listeners.keys()) this.emit(topic);
  }
}
