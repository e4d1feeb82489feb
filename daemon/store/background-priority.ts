// Background work (snapshot builds) yields the CPU to the daemon's event loop. A compaction reads
// and writes the whole data set; on a machine of a few cores at full load it competed with
// request handling and with the clients on the same host, as much as the event loop itself.
import { setPriority } from 'node:os';

/** the lowest priority: the thread runs on what the others leave */
export const BACKGROUND_NICE = 19;

/**
 * Lowers the calling thread's scheduling priority. Linux only: there the nice value belongs to a
 * thread, so a worker thread lowers itself alone; elsewhere it would lower the whole daemon.
 * Best effort: where the system refuses, the work runs at normal priority.
 */
export function runInBackground(platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return false;
  try {
    setPriority(BACKGROUND_NICE);
    return true;
  } catch {
    return false;
  }
}
