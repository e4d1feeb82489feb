// CPU time of processes the bench did not fork itself (the database server's backends) or did
// (daemons), read from /proc: Linux only, as the benchmarks are run here.
import { readdir, readFile } from 'node:fs/promises';

/**
 * User + system time of a process and its children: those still running read one by one, those
 * that exited through the parent's cutime/cstime (the kernel adds a child's time there once it is
 * reaped, as the postmaster reaps each backend whose connection closed).
 */
export async function treeCpuMicros(root: number): Promise<number> {
  const ticksToMicros = 1_000_000 / 100; // USER_HZ is 100 on Linux
  let ticks = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const ppid = Number(fields[1]);
    if (pid !== root && ppid !== root) continue;
    // utime, stime, cutime, cstime: fields 14-17 of the line, 12-15 after the name
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return ticks * ticksToMicros;
}
