// `mkdir -p` for a folder the user names (--data, --store, --to). Node's own recursive mkdir never
// returns when the system answers ENOENT for a folder whose parent exists, as it does under
// /proc: it makes the parent again and retries, forever. Here each missing folder is made on its
// own, from the top down, so that answer is the error it is.
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export async function makeFolder(path: string, mode: number): Promise<void> {
  const full = resolve(path);
  try {
    await mkdir(full, { mode });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await stat(full)).isDirectory()) return;
    if (code !== 'ENOENT' || dirname(full) === full) throw err;
    await makeFolder(dirname(full), mode);
    await mkdir(full, { mode }).catch(async (again: NodeJS.ErrnoException) => {
      // (made meanwhile by someone else: as good as made here)
      if (again.code !== 'EEXIST' || !(await stat(full)).isDirectory()) throw again;
    });
  }
}
