// makeFolder, the `mkdir -p` of the folders a user names: it makes what is missing, takes what is
// there, and fails (rather than hangs, as Node's recursive mkdir does) where the system answers
// ENOENT under a parent that exists, as /proc does.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFolder } from '../../daemon/make-folder.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-make-folder-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('makeFolder', () => {
  it('makes every missing folder of the path with the mode asked for, and takes one that is there', async () => {
    const deep = join(dir, 'a', 'b', 'c');
    await makeFolder(deep, 0o700);
    for (const p of [join(dir, 'a'), join(dir, 'a', 'b'), deep]) expect(((await stat(p)).mode & 0o777).toString(8)).toBe('700');
    await makeFolder(deep, 0o700);
    await makeFolder(`${deep}/`, 0o700);
  });

  it('refuses a path through a file, or a file in the place of the folder', async () => {
    const file = join(dir, 'file');
    await writeFile(file, 'x');
    await expect(makeFolder(file, 0o700)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(makeFolder(join(file, 'sub'), 0o700)).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('fails with ENOENT under /proc, where no folder can be made, instead of trying forever', async () => {
    await expect(makeFolder('/proc/svc-no-such-folder/data', 0o700)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('makes the same folders from many callers at once', async () => {
    const shared = join(dir, 'x', 'y', 'z');
    await Promise.all(Array.from({ length: 8 }, () => makeFolder(shared, 0o700)));
    expect((await stat(shared)).isDirectory()).toBe(true);
  });
});
