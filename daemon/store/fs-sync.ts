// Durability helpers: a rename or a new file is only durable once its folder is fsynced.
import { open } from 'node:fs/promises';

export async function fsyncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch (err) {
    // Windows cannot open a folder; there the rename itself is as durable as it gets.
    if (process.platform === 'win32') return;
    throw err;
  }
  try {
    await handle.sync();
  } catch (err) {
    if (process.platform !== 'win32' && (err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
  } finally {
    await handle.close();
  }
}

/** Writes all of `buf`, looping over short writes: at the file position, or from `position` on. */
export async function writeAll(handle: import('node:fs/promises').FileHandle, buf: Buffer, position?: number): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesWritten } = await handle.write(buf, off, buf.length - off, position === undefined ? null : position + off);
    off += bytesWritten;
  }
}
