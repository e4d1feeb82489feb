// Snapshots over READ_BY_LINES_ABOVE_BYTES are read a line at a time (a JS string cannot hold
// one over about 512 MiB): here the threshold is 0, so every file takes that path.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SnapshotFile, StoreCorruptError } from '../../daemon/store/snapshot-file.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function path() {
  const dir = await mkdtemp(join(tmpdir(), 'svc-snaplines-'));
  dirs.push(dir);
  return join(dir, 'snapshot.json');
}

const data = {
  schema_version: 6,
  seq: 42,
  tables: {
    teams: [{ id: 't1', slug: 'acme', name: 'line\nbreak ]}, "quoted" ],\n}}' }],
    automations: [],
    sessions: [
      { session_id: 's1', prompt: 'ends with brackets ]]', tags: [1, [2, [3]]], event: { data: { list: [] } } },
      { session_id: 's2', prompt: 'émoji 😀 and \u2028 separators', answer: null },
    ],
    messages: [],
    'odd "name"': [{ id: 'x' }],
  },
};

describe('a snapshot read a line at a time', () => {
  it('reads back what SnapshotFile wrote, as a whole read does: empty tables, rows with brackets, newlines and unicode in strings', async () => {
    const p = await path();
    await new SnapshotFile(p).write(data as never);
    const byLines = await new SnapshotFile(p, 0).read();
    const whole = await new SnapshotFile(p).read();
    expect(byLines).toEqual(data);
    expect(byLines).toEqual(whole);
  });

  it('refuses a file cut short, a row that is not JSON, or text after the end, as the daemon refuses a corrupt snapshot', async () => {
    const p = await path();
    await new SnapshotFile(p).write(data as never);
    const text = await readFile(p, 'utf8');
    const cases = {
      'cut short': text.slice(0, text.lastIndexOf('}}')),
      'cut inside a row': text.slice(0, text.indexOf('émoji')),
      'a broken row': text.replace('{"session_id":"s2"', '{"session_id":s2"'),
      'text after the end': `${text}{"more":1}\n`,
      'not a snapshot': '{"schema_version": 6, "seq": 1, "tables": {}}\n',
    };
    for (const [what, content] of Object.entries(cases)) {
      await writeFile(p, content);
      await expect(new SnapshotFile(p, 0).read(), what).rejects.toThrow(StoreCorruptError);
    }
  });
});
