import { describe, expect, it } from 'vitest';
import { EtagCache } from '../../daemon/skills/etag-cache.js';
import { Limiter } from '../../daemon/skills/limiter.js';

describe('Limiter', () => {
  it('never runs more than max tasks at once and runs them all', async () => {
    const limiter = new Limiter(3);
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const results = Array.from({ length: 10 }, (_, i) =>
      limiter.run('t', async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
        return i;
      }),
    );
    while (gates.length > 0 || running > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      gates.shift()?.();
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(3);
  });

  it('frees the slot of a task that fails', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run('t', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run('t', async () => 'next')).resolves.toBe('next');
  });

  it('refuses a limit below one, and a lane share outside 1..max', () => {
    expect(() => new Limiter(0)).toThrow(RangeError);
    expect(() => new Limiter(4, 0)).toThrow(RangeError);
    expect(() => new Limiter(4, 5)).toThrow(RangeError);
  });

  /** A task that holds its slot until released; `started` lists tasks in the order they started. */
  function gated(limiter: Limiter, started: string[]) {
    const gates = new Map<string, () => void>();
    const add = (lane: string, name: string) =>
      limiter.run(lane, async () => {
        started.push(name);
        await new Promise<void>((resolve) => gates.set(name, resolve));
      });
    const release = async (name: string) => {
      gates.get(name)!();
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    return { add, release };
  }
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  };

  it("keeps slots free for other lanes: one lane's stuck tasks hold at most its share", async () => {
    const started: string[] = [];
    const { add, release } = gated(new Limiter(4, 3), started);
    for (let i = 0; i < 10; i++) void add('stuck', `s${i}`);
    await settle();
    expect(started).toEqual(['s0', 's1', 's2']);
    void add('other', 'o0');
    await settle();
    expect(started).toEqual(['s0', 's1', 's2', 'o0']);
    await release('o0');
    await release('s0');
    expect(started).toEqual(['s0', 's1', 's2', 'o0', 's3']);
  });

  it('gives waiting lanes turns, each lane in arrival order', async () => {
    const started: string[] = [];
    const { add, release } = gated(new Limiter(1), started);
    void add('a', 'a0');
    for (const name of ['a1', 'a2', 'a3']) void add('a', name);
    for (const name of ['b1', 'b2']) void add('b', name);
    await settle();
    for (const name of ['a0', 'a1', 'b1', 'a2', 'b2']) await release(name);
    expect(started).toEqual(['a0', 'a1', 'b1', 'a2', 'b2', 'a3']);
  });
});

describe('EtagCache', () => {
  it('forgets the least recently used entry when full', () => {
    const cache = new EtagCache<number>(2);
    cache.set('a', { etag: '"a"', value: 1 });
    cache.set('b', { etag: '"b"', value: 2 });
    expect(cache.get('a')?.value).toBe(1);
    cache.set('c', { etag: '"c"', value: 3 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.etag).toBe('"a"');
    expect(cache.get('c')?.value).toBe(3);
    expect(cache.size).toBe(2);
  });
});
