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
      limiter.run(async () => {
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
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(async () => 'next')).resolves.toBe('next');
  });

  it('refuses a limit below one', () => {
    expect(() => new Limiter(0)).toThrow(RangeError);
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
