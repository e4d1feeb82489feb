// The scheduler's one timer, behind an interface so unit tests can drive virtual time.

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

/** setTimeout's limit: a longer delay fires at once, so longer waits are taken in steps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const realTimers: Timers = {
  set(fn, ms) {
    const handle = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    // A sleeping scheduler must not keep a process alive on its own (the HTTP server does).
    handle.unref();
    return handle;
  },
  clear(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
