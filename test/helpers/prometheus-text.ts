// Reads the Prometheus text exposition format (version 0.0.4), as a scraper would, so tests
// assert on samples rather than on the daemon's own wording of them.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;
const UNESCAPE: Record<string, string> = { n: '\n', '"': '"', '\\': '\\' };

/** Every sample of the text; throws on a line that is neither a sample, a comment nor blank. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const [, name, raw] of (m[2] ?? '').matchAll(LABEL)) labels[name] = raw.replace(/\\(.)/g, (_, c: string) => UNESCAPE[c] ?? c);
    samples.push({ name: m[1], labels, value: numberOf(m[3]) });
  }
  return samples;
}

const numberOf = (text: string) => (text === '+Inf' ? Infinity : text === '-Inf' ? -Infinity : Number(text));

/** The samples of `name` whose labels include `labels`. */
export function samplesOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one sample of `name` with `labels` (0 when there is none, as for a counter not yet counted). */
export function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samplesOf(samples, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}
