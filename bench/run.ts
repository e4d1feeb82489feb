// `npm run bench`: runs every benchmark in turn on this machine and writes docs/benchmarks.md.
// Each module exports `run(): Promise<string>` returning its markdown section (a `## ` heading
// and what follows). Naming suites runs only those and replaces only their sections, so one
// benchmark can be re-measured without losing the others' figures. The hand-written section of
// figures behind choices in the code (HAND_WRITTEN) is kept by every run.
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

const SUITES = ['store', 'ingest', 'scheduler', 'fleet', 'cli', 'daemon-start'] as const;
/** A section written by hand (figures measured once, behind choices in the code): every run keeps it, last. */
const HAND_WRITTEN = '## Measurements behind the code';

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const fresh: string[] = [];
  for (const name of SUITES) {
    if (only.length > 0 && !only.includes(name)) continue;
    process.stderr.write(`bench: ${name}...\n`);
    const mod = (await import(`./${name}.js`)) as { run(): Promise<string> };
    fresh.push(await mod.run());
  }
  const out = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));
  const kept = sectionsOf(await readFile(out, 'utf8').catch(() => '')).filter((s) => only.length > 0 || heading(s) === HAND_WRITTEN);
  const header = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (`node dist/bench/run.js [store|ingest|scheduler|fleet|cli|daemon-start]`).',
    'Figures are medians and percentiles of repeated runs on a shared, noisy machine: compare the',
    'ratios within one run rather than absolute numbers across runs.',
    '',
    `Last run: ${new Date().toISOString()} on Node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB` +
      (only.length > 0 ? ` (${only.join(', ')}; the other sections are from earlier runs).` : '.'),
    '',
  ].join('\n');
  await writeFile(out, header + '\n' + merge(kept, fresh).join('\n\n') + '\n');
  process.stderr.write(`bench: wrote ${out}\n`);
}

/** The `## ` sections of a benchmarks file, each with its heading. */
function sectionsOf(text: string): string[] {
  const start = text.indexOf('\n## ');
  if (start === -1) return [];
  return text
    .slice(start + 1)
    .split(/\n(?=## )/)
    .map((s) => s.trimEnd());
}

const heading = (section: string) => section.split('\n', 1)[0];

/** `kept` with each section that has a fresh one of the same heading replaced, in suite order; the hand-written one last. */
function merge(kept: string[], fresh: string[]): string[] {
  const byHeading = new Map(fresh.map((s) => [heading(s), s]));
  const merged = kept.map((s) => byHeading.get(heading(s)) ?? s);
  for (const s of fresh) if (!kept.some((k) => heading(k) === heading(s))) merged.push(s);
  return merged.sort((a, b) => Number(heading(a) === HAND_WRITTEN) - Number(heading(b) === HAND_WRITTEN));
}

await main();
