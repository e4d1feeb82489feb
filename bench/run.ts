// `npm run bench`: runs every benchmark in turn on this machine and writes docs/benchmarks.md.
// Each module exports `run(): Promise<string>` returning its markdown section.
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

const SUITES = ['store', 'ingest', 'scheduler', 'cli'] as const;

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const sections: string[] = [];
  for (const name of SUITES) {
    if (only.length > 0 && !only.includes(name)) continue;
    process.stderr.write(`bench: ${name}...\n`);
    const mod = (await import(`./${name}.js`)) as { run(): Promise<string> };
    sections.push(await mod.run());
  }
  const header = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (`node dist/bench/run.js [store|ingest|scheduler|cli]`).',
    'Figures are medians and percentiles of repeated runs on a shared, noisy machine: compare the',
    'ratios within one run rather than absolute numbers across runs.',
    '',
    `Last run: ${new Date().toISOString()} on Node ${process.version}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB.`,
    '',
  ].join('\n');
  const out = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));
  await writeFile(out, header + '\n' + sections.join('\n\n') + '\n');
  process.stderr.write(`bench: wrote ${out}\n`);
}

await main();
