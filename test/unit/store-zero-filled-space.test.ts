// The journal keeps synced zeros past its last record (zero-filled-space.ts): records overwrite
// them, never a fill the records they follow, and readers take the zeros as unused space.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { JournalWriter, readSegment, segmentPath, type JournalRecord } from '../../daemon/store/journal-file.js';
import { FIRST_FILL, MAX_FILL, ZeroFilledSpace } from '../../daemon/store/zero-filled-space.js';
import { journalText } from '../helpers/journal-files.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-zero-'));
  dirs.push(dir);
  return dir;
}

const record = (seq: number, padding: number) => `${JSON.stringify({ seq, m: [['put', 'teams', { id: `t${seq}`, pad: 'x'.repeat(padding) }]] })}\n`;

async function readAll(path: string) {
  const records: JournalRecord[] = [];
  const result = await readSegment(path, (rec) => records.push(rec));
  return { records, ...result };
}

describe('ZeroFilledSpace', () => {
  test('fills ahead of the records, each fill twice the last up to the largest, and never where records go next', async () => {
    const fills: { from: number; size: number; finish: () => void }[] = [];
    const syncedWrite = (_h: FileHandle, buf: Buffer, position: number) =>
      new Promise<void>((resolve) => fills.push({ from: position, size: buf.length, finish: resolve }));
    const space = new ZeroFilledSpace({} as FileHandle, 0, syncedWrite);

    space.afterWrite(100);
    expect(fills.map((f) => [f.from, f.size])).toEqual([[100, FIRST_FILL]]);
    // Records short of the fill go ahead at once; one reaching into it waits for the zeros.
    let waited = false;
    await space.beforeWrite(100, 0);
    const reaching = space.beforeWrite(100, 1).then(() => (waited = true));
    await new Promise((r) => setImmediate(r));
    expect(waited).toBe(false);
    // No second fill while one is under way.
    space.afterWrite(200);
    expect(fills).toHaveLength(1);
    fills[0].finish();
    await reaching;
    expect(waited).toBe(true);

    // Filled to 100 + 64 KiB: the next fill starts only once less than half of that is left.
    space.afterWrite(100 + FIRST_FILL / 2);
    expect(fills).toHaveLength(1);
    space.afterWrite(100 + FIRST_FILL / 2 + 1);
    expect(fills).toHaveLength(2);
    expect(fills[1]).toMatchObject({ from: 100 + FIRST_FILL, size: 2 * FIRST_FILL });
    fills[1].finish();
    await space.settle();
    let size = 2 * FIRST_FILL;
    let end = 100 + 3 * FIRST_FILL;
    while (size < MAX_FILL) {
      space.afterWrite(end - size / 2);
      expect(fills.at(-1)!.size).toBe(size);
      space.afterWrite(end - size / 2 + 1);
      const f = fills.at(-1)!;
      expect(f.from).toBe(end);
      expect(f.size).toBe(Math.min(MAX_FILL, size * 2));
      size = f.size;
      end += size;
      f.finish();
      await space.settle();
    }
    space.afterWrite(end - 1);
    expect(fills.at(-1)!.size).toBe(MAX_FILL);
  });

  test('an idle store fills little: a few small records leave one first fill', async () => {
    const fills: number[] = [];
    const space = new ZeroFilledSpace({} as FileHandle, 0, async (_h, buf) => {
      fills.push(buf.length);
    });
    for (let end = 200; end <= 2_000; end += 200) {
      await space.beforeWrite(end - 200, 200);
      space.afterWrite(end);
      await space.settle();
    }
    expect(fills).toEqual([FIRST_FILL]);
  });

  test('a fill that fails (a full disk) stops the filling; records still go on', async () => {
    let calls = 0;
    const space = new ZeroFilledSpace({} as FileHandle, 0, async () => {
      calls++;
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    });
    space.afterWrite(10);
    await space.settle();
    await space.beforeWrite(10, 1_000_000);
    space.afterWrite(1_000_010);
    await space.settle();
    expect(calls).toBe(1);
  });
});

describe('journal segments with zeros past their records', () => {
  test('records of every size, written in bursts, land one after the other over the zeros, which stay past them', async () => {
    const dir = await tempDir();
    const writer = await JournalWriter.open(dir, 1, 0);
    const expected: string[] = [];
    let seq = 0;
    for (let burst = 0; burst < 40; burst++) {
      const lines = Array.from({ length: 1 + (burst % 7) }, (_, i) => record(++seq, ((burst * 7919 + i * 104729) % 50_000) + (burst % 5 === 0 ? 300_000 : 0)));
      expected.push(...lines);
      await Promise.all(lines.map((l) => writer.append(Buffer.from(l))));
    }
    await writer.close();
    const path = segmentPath(dir, 1);
    expect(await journalText(path)).toBe(expected.join(''));
    // The file runs on past them in zeros, filled ahead of what came next.
    expect((await stat(path)).size).toBeGreaterThan(Buffer.byteLength(expected.join('')));
    const { records, goodBytes, torn } = await readAll(path);
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: seq }, (_, i) => i + 1));
    expect(goodBytes).toBe(Buffer.byteLength(expected.join('')));
    expect(torn).toBeNull();
  });

  test('a reopened segment takes its next record where its last one ended, over the zeros', async () => {
    const dir = await tempDir();
    const first = await JournalWriter.open(dir, 1, 0);
    await first.append(Buffer.from(record(1, 10)));
    await first.close();
    const path = segmentPath(dir, 1);
    const { goodBytes } = await readAll(path);
    const again = await JournalWriter.open(dir, 1, goodBytes);
    await again.append(Buffer.from(record(2, 10)));
    await again.close();
    expect(await journalText(path)).toBe(record(1, 10) + record(2, 10));
  });

  test('zeros are unused space only from a line start to the end of the file', async () => {
    const dir = await tempDir();
    const path = join(dir, 'segment.jsonl');
    const zeros = (n: number) => '\0'.repeat(n);

    await writeFile(path, record(1, 5) + zeros(3 * 1024 * 1024 + 7));
    expect(await readAll(path)).toMatchObject({ records: [{ seq: 1 }], goodBytes: Buffer.byteLength(record(1, 5)), torn: null });

    // A record cut short by a crash, the zeros after it: torn, its bytes up to the zeros.
    const partial = record(2, 5).slice(0, 20);
    await writeFile(path, record(1, 5) + partial + zeros(4096));
    expect(await readAll(path)).toMatchObject({ records: [{ seq: 1 }], torn: { line: 2 } });

    // Zeros with something after them are not unused space: a line holding zeros, the last one, torn.
    await writeFile(path, record(1, 5) + zeros(10) + record(2, 5));
    expect(await readAll(path)).toMatchObject({ records: [{ seq: 1 }], torn: { line: 2 } });
    // ... and not the last one: corruption.
    await writeFile(path, record(1, 5) + zeros(10) + record(2, 5) + record(3, 5));
    await expect(readAll(path)).rejects.toThrow('line 2 is not a valid journal record and is not the last line');
    // A damaged line written whole, zeros after it: still corruption, not torn.
    await writeFile(path, record(1, 5) + 'not json\n' + zeros(100));
    await expect(readAll(path)).rejects.toThrow('line 2 is not a valid journal record, though it was written whole');
  });

  test('an empty file and a file of zeros alone hold no records', async () => {
    const dir = await tempDir();
    const path = join(dir, 'segment.jsonl');
    await writeFile(path, '');
    expect(await readAll(path)).toEqual({ records: [], goodBytes: 0, torn: null });
    await writeFile(path, Buffer.alloc(70_000));
    expect(await readAll(path)).toEqual({ records: [], goodBytes: 0, torn: null });
  });
});
