// Where a process's CPU time went: V8's sampling CPU profile (what `node --cpu-prof` writes) taken
// for a stretch of a benchmark through the inspector, and summed by what the code belongs to.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** sampled time, ms, the idle time left out */
  busyMs: number;
  /** share of busy time by what the code belongs to, largest first */
  parts: { part: string; share: number }[];
  /** the functions with the most self time */
  top: { name: string; share: number }[];
}

export interface Profiling {
  /** stops, summarises, and with SVC_BENCH_PROF=DIR writes the raw profile there as NAME.cpuprofile */
  stop(name: string): Promise<ProfileSummary>;
}

export async function startProfiling(): Promise<Profiling> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
      session.disconnect();
      const dir = process.env.SVC_BENCH_PROF;
      if (dir) await writeFile(join(dir, `${name.replace(/[^\w.-]+/g, '-')}.cpuprofile`), JSON.stringify(profile));
      return summarise(profile);
    },
  };
}

function summarise(profile: Profile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  // The profiler's own start and stop (the inspector's dispatch, building the profile) are no work of the process's.
  const profilerItself = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) if (byId.get(at)!.callFrame.url.startsWith('node:inspector')) return true;
    return false;
  };
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (!profilerItself(id)) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const parts = new Map<string, number>();
  const fns = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of selfMicros) {
    const { functionName, url } = byId.get(id)!.callFrame;
    const part = partOf(functionName, url);
    if (part === 'idle') continue;
    busy += micros;
    parts.set(part, (parts.get(part) ?? 0) + micros);
    const name = `${functionName || '(anonymous)'} (${shortUrl(url)})`;
    fns.set(name, (fns.get(name) ?? 0) + micros);
  }
  const ranked = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    busyMs: busy / 1000,
    parts: ranked(parts).map(([part, micros]) => ({ part, share: micros / busy })),
    top: ranked(fns)
      .slice(0, 8)
      .map(([name, micros]) => ({ name, share: micros / busy })),
  };
}

/** What a function belongs to: a package, a part of svc, Node itself, or V8's own work. */
function partOf(functionName: string, url: string): string {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 and native code outside JavaScript';
  if (url === '') return functionName.startsWith('JSON') ? 'JSON' : 'V8 built-ins';
  if (url.startsWith('node:')) return 'Node internals (http, net, streams, timers)';
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (pkg) return /^(pg|pg-.*|postgres-.*)$/.test(pkg) ? 'pg driver' : /fastify|find-my-way|avvio|light-my-request/.test(pkg) ? 'Fastify' : pkg;
  const svc = /\/dist\/(daemon\/[^/]+|shared|bench)\//.exec(url)?.[1];
  if (svc === 'daemon/store') {
    return /\/store\/postgres\//.test(url) ? 'svc daemon/store/postgres' : 'svc daemon/store';
  }
  return svc ? `svc ${svc}` : 'other';
}

const shortUrl = (url: string) => (url === '' ? 'native' : url.replace(/^.*\/(node_modules|dist)\//, '').replace(/^file:\/\//, ''));
