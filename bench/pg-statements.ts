// Counts the statements this process sends to PostgreSQL, by kind (`INSERT sessions`, `BEGIN`...),
// how long each kind took from being sent to its answer, and the round trips: the daemon's
// connections are pipelined (daemon/store/postgres/pool.ts), so a statement sent while another is
// still unanswered on its connection waits with it, not after it; only one sent on a connection
// with nothing outstanding starts a round trip. Installed by wrapping `pg.Client.prototype.query`,
// which the pool's queries go through too.
import { performance } from 'node:perf_hooks';
import pg from 'pg';

/**
 * By kind: statements sent, those of them that started a round trip (unknown when the database
 * counted them), and the milliseconds from sending each to its answer.
 */
export type StatementCounts = Record<string, { n: number; trips?: number; ms: number }>;

export interface StatementCounter {
  /** the counts so far, by kind */
  snapshot(): StatementCounts;
}

type Query = (...args: unknown[]) => unknown;

/** Starts counting (once per process); later calls return the same counter. */
export function countStatements(): StatementCounter {
  const proto = pg.Client.prototype as unknown as { query: Query; svcBenchCounts?: StatementCounts };
  if (!proto.svcBenchCounts) {
    const counts: StatementCounts = {};
    const original = proto.query;
    proto.query = function (this: { svcBenchOutstanding?: number }, ...args: unknown[]) {
      const config = args[0];
      const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
      if (text === undefined) return original.apply(this, args);
      const c = (counts[kindOf(text)] ??= { n: 0, trips: 0, ms: 0 });
      c.n++;
      if (!this.svcBenchOutstanding) c.trips!++;
      this.svcBenchOutstanding = (this.svcBenchOutstanding ?? 0) + 1;
      const start = performance.now();
      const done = () => {
        c.ms += performance.now() - start;
        this.svcBenchOutstanding!--;
      };
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const cb = args[last] as (...a: unknown[]) => unknown;
        args[last] = (...a: unknown[]) => {
          done();
          return cb(...a);
        };
        return original.apply(this, args);
      }
      const result = original.apply(this, args);
      if (result instanceof Promise) void result.then(done, done);
      return result;
    };
    proto.svcBenchCounts = counts;
  }
  const counts = proto.svcBenchCounts;
  return { snapshot: () => structuredClone(counts) };
}

/** `after - before`, by kind, leaving out kinds that did not change. */
export function countsBetween(before: StatementCounts, after: StatementCounts): StatementCounts {
  const out: StatementCounts = {};
  for (const [kind, c] of Object.entries(after)) {
    const n = c.n - (before[kind]?.n ?? 0);
    if (n > 0) out[kind] = { n, trips: (c.trips ?? 0) - (before[kind]?.trips ?? 0), ms: c.ms - (before[kind]?.ms ?? 0) };
  }
  return out;
}

export function addCounts(a: StatementCounts, b: StatementCounts): StatementCounts {
  const out: StatementCounts = structuredClone(a);
  for (const [kind, c] of Object.entries(b)) out[kind] = { n: (out[kind]?.n ?? 0) + c.n, trips: (out[kind]?.trips ?? 0) + (c.trips ?? 0), ms: (out[kind]?.ms ?? 0) + c.ms };
  return out;
}

export const totalOf = (counts: StatementCounts) => Object.values(counts).reduce((a, c) => a + c.n, 0);
export const tripsOf = (counts: StatementCounts) => Object.values(counts).reduce((a, c) => a + (c.trips ?? 0), 0);

/** What a statement does, to which table: its verb and the first table it names. */
export function kindOf(text: string): string {
  const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? '?';
  if (verb === 'BEGIN' || verb === 'COMMIT' || verb === 'ROLLBACK' || verb === 'SET') return verb;
  const table = /\b(?:FROM|INTO|UPDATE)\s+"?(\w+)"?/i.exec(text)?.[1] ?? '?';
  if (verb === 'SELECT' && /\bcount\(\*\)/i.test(text)) return `SELECT count ${table}`;
  return `${verb} ${table}`;
}

/** Statements per unit (a matched event, a slot) by kind, most frequent first, with their mean round trip. */
export function perUnit(counts: StatementCounts, units: number): string {
  return Object.entries(counts)
    .sort((a, b) => b[1].n - a[1].n)
    .map(([kind, c]) => `\`${kind}\` ${figure(c.n / Math.max(1, units))} (${((c.ms * 1000) / c.n).toFixed(0)} µs each)`)
    .join(', ');
}

/** Two decimals, or two significant digits below 0.1 (a statement per batch of 512 slots). */
export const figure = (x: number) => (x >= 0.1 || x === 0 ? x.toFixed(2) : x.toPrecision(2));
