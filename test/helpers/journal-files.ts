// Journal segments as files, for tests that read them or add to them as a crash or another
// writer would. A segment keeps zeros past its last record for the records to come
// (daemon/store/zero-filled-space.ts): what a test reads stops before them, and what it adds
// goes where the next record would, over them.
import { open, readFile } from 'node:fs/promises';

/** The segment's bytes up to the end of its last record (every record ends in a newline, never a zero). */
export async function journalBytes(path: string): Promise<Buffer> {
  const bytes = await readFile(path);
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.subarray(0, end);
}

export async function journalText(path: string): Promise<string> {
  return (await journalBytes(path)).toString('utf8');
}

/** Writes `text` right after the segment's last record, where the daemon's next append would go. */
export async function writeAfterLastRecord(path: string, text: string): Promise<void> {
  const end = (await journalBytes(path)).length;
  const handle = await open(path, 'r+');
  try {
    const buf = Buffer.from(text, 'utf8');
    await handle.write(buf, 0, buf.length, end);
  } finally {
    await handle.close();
  }
}
