import { inert } from '../../terminal-text.js';
import { apiPath } from '../../../shared/client.js';
import type { ScanResultDto } from '../../../shared/schemas/skills.js';
import { defineCommand } from '../../command.js';
import { type Context } from '../../context.js';
import { ellipsize, formatBytes, plural } from '../../lib/format.js';
import { withSpinner } from '../../lib/spinner.js';

interface ScanOptions extends Record<string, unknown> {
  ref: string;
}

export const DEFAULT_REF = 'main';
/** the narrowest a description column gets on a terminal before it stops shrinking */
const MIN_DESCRIPTION_WIDTH = 20;

type Skill = ScanResultDto['skills'][number];

/**
 * On a terminal each skill stays on one line: the description gets whatever width the name, path
 * and size columns leave. Elsewhere it is printed whole (line breaks folded), for grep.
 */
function descriptionWidth(ctx: Context, skills: readonly Skill[]): number | undefined {
  const columns = ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined;
  if (!columns) return undefined;
  const widest = (header: string, values: string[]) => Math.max(header.length, ...values.map((v) => v.length));
  const used =
    widest('NAME', skills.map((s) => s.name)) + widest('PATH', skills.map((s) => s.path)) + widest('SIZE', skills.map((s) => formatBytes(s.sizeBytes)));
  return Math.max(MIN_DESCRIPTION_WIDTH, columns - used - 3 * 2);
}

export const command = defineCommand<{ repository: string }, ScanOptions>({
  name: 'skills scan',
  description: 'Find the Agent Skills (SKILL.md files) in a GitHub repository',
  args: [{ name: 'repository', description: 'https://github.com/OWNER/NAME', required: true }],
  options: [{ flags: '--ref <ref>', description: 'branch or tag to scan', default: DEFAULT_REF }],
  examples: [
    { description: 'Scan the main branch', command: 'svc skills scan https://github.com/anthropics/skills' },
    { description: 'Scan a tag, for a script', command: 'svc skills scan https://github.com/acme/skills --ref v1.2.0 --json' },
  ],
  async run(args, opts, ctx) {
    const team = await ctx.team();
    const client = await ctx.client();
    const result = await withSpinner(ctx.io, `Scanning ${args.repository} at ${opts.ref}…`, () =>
      client.post<ScanResultDto>(apiPath`/teams/${team}/skills/scan`, { repository: args.repository, ref: opts.ref }),
    );
    if (ctx.out.json) return ctx.out.printJson(result);

    ctx.out.status(
      `${result.repository} at ${result.ref} (${result.commit.slice(0, 7)}): ${plural(result.skills.length, 'skill')}, ` +
        `${plural(result.skipped.length, 'file')} skipped.`,
    );
    const width = descriptionWidth(ctx, result.skills);
    ctx.out.table(
      result.skills,
      [
        { header: 'Name', value: (s) => s.name, style: (t, c) => c.bold(t), keep: true },
        { header: 'Path', value: (s) => s.path, keep: true },
        { header: 'Size', value: (s) => formatBytes(s.sizeBytes) },
        { header: 'Description', value: (s) => (width ? ellipsize(s.description, width) : s.description) },
      ],
      { empty: 'No valid skills found.' },
    );
    if (result.skipped.length === 0) return;
    ctx.out.line();
    if (!ctx.io.stdout.isTTY) {
      ctx.out.line('Skipped:');
      ctx.out.table(result.skipped, [
        { header: 'Path', value: (s) => s.path },
        { header: 'Reason', value: (s) => s.reason },
      ]);
      return;
    }
    // A reason is what an author acts on: on a terminal it gets a line of its own, never cut.
    const { chalk } = ctx.out;
    ctx.out.line(chalk.yellow(`Skipped (${result.skipped.length}):`));
    for (const s of result.skipped) ctx.out.line(`  ${chalk.bold(inert(s.path))}\n    ${inert(s.reason)}`);
  },
});
