// Whether a process still runs, for tests that wait for one to be gone.
import { readFileSync } from 'node:fs';

/** True while `pid` exists and is not a zombie (a killed process nobody reaped yet runs nothing). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}
