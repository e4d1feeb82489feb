import type { AutomationDto } from '../../../shared/schemas/automations.js';
import { defineCommand } from '../../command.js';
import { type Column } from '../../output.js';
import { readStructuredFile } from '../../lib/structured-file.js';
import { type PlanItem, planApply } from '../../automations/apply-plan.js';
import {
  automationPath,
  automationsPath,
  defaultEnvironmentId,
  isUuid,
  listAllAutomations,
} from '../../automations/resolve.js';
import { resolveEnvironmentId } from '../../lib/environment-ref.js';
import { entriesOfDocuments, Problems, specFromDocument } from '../../automations/spec.js';
import { loadFilterCheck } from '../../automations/filter-check.js';

interface ApplyOptions extends Record<string, unknown> {
  file: string;
  dryRun?: boolean;
}

interface Outcome {
  name: string;
  action: string;
  id: string | null;
  changes: string[];
}

const DONE: Record<PlanItem['action'], string> = { create: 'created', update: 'updated', unchanged: 'unchanged' };
const PLANNED: Record<PlanItem['action'], string> = { create: 'would create', update: 'would update', unchanged: 'unchanged' };

const columns: Column<Outcome>[] = [
  { header: 'Action', value: (o) => o.action, style: (s, c) => (s === 'unchanged' ? c.dim(s) : c.green(s)) },
  { header: 'Name', value: (o) => o.name },
  { header: 'ID', value: (o) => o.id, keep: true },
  { header: 'Changes', value: (o) => o.changes.join(', ') },
];

export const command = defineCommand<Record<string, never>, ApplyOptions>({
  name: 'automations apply',
  description: 'Create or update automations from a JSON/YAML file, matched by name; safe to run every time',
  options: [
    { flags: '-f, --file <path>', description: 'JSON or YAML: one automation, a list, or several YAML documents (`-` reads stdin)', required: true },
    { flags: '--dry-run', description: 'show what would change, and change nothing' },
  ],
  examples: [
    { description: 'Make the team match a file kept in the repository', command: 'svc automations apply -f automations.yaml' },
    { description: 'See what it would do first', command: 'svc automations apply -f automations.yaml --dry-run' },
    { description: 'In CI: what happened to each, as JSON', command: "svc automations apply -f automations.yaml --json | jq -r '.[] | \"\\(.action) \\(.name)\"'" },
  ],
  async run(_args, opts, ctx) {
    const file = await readStructuredFile(ctx, opts.file);
    const entries = entriesOfDocuments(file.documents);
    await loadFilterCheck();
    const problems = new Problems();
    const labelled = entries.map((doc, i) => {
      const named = typeof (doc as { name?: unknown })?.name === 'string' ? ` "${(doc as { name: string }).name}"` : '';
      const label = entries.length === 1 ? file.name : `${file.name} [${i}]${named}`;
      return { spec: specFromDocument(doc, label, problems), label };
    });
    problems.throwIfAny(`${file.name} is not valid`);

    const client = await ctx.client();
    const team = await ctx.team();
    for (const e of labelled) {
      const env = e.spec.environment_id;
      if (typeof env === 'string' && !isUuid(env)) e.spec.environment_id = await resolveEnvironmentId(client, team, env);
    }
    const current = await listAllAutomations(client, team);
    // null means the team's default environment; its id is needed only to compare against it.
    const wantsDefault = labelled.some((e) => e.spec.environment_id === null);
    const plan = planApply(labelled, current, {
      now: new Date(),
      defaultEnvironmentId: wantsDefault ? await defaultEnvironmentId(client, team) : undefined,
    });

    const outcomes: Outcome[] = [];
    const report = () => {
      const data = outcomes.map(({ name, action, id }) => ({ name, action, id }));
      ctx.out.result(data, () => ctx.out.table(outcomes, columns, { empty: `${file.name} holds no automation.` }));
    };
    if (opts.dryRun) {
      for (const p of plan) outcomes.push({ name: p.name, action: ctx.out.json ? p.action : PLANNED[p.action], id: p.id, changes: p.changes });
      report();
      ctx.out.status('Dry run: nothing was changed.');
      return;
    }
    try {
      for (const p of plan) {
        let id = p.id;
        if (p.action === 'create') id = (await client.post<AutomationDto>(automationsPath(team), p.body)).id;
        else if (p.action === 'update') await client.patch<AutomationDto>(automationPath(team, p.id!), p.body);
        outcomes.push({ name: p.name, action: DONE[p.action], id, changes: p.changes });
      }
    } catch (err) {
      // Say what was already done before the failure (with --json too: a script must learn it),
      // as the file is half applied.
      if (outcomes.length > 0) report();
      if (outcomes.length > 0) ctx.out.status(`Stopped after ${outcomes.length} of ${plan.length}; running apply again continues from here.`);
      throw err;
    }
    report();
    const count = (a: PlanItem['action']) => plan.filter((p) => p.action === a).length;
    ctx.out.status(`${count('create')} created, ${count('update')} updated, ${count('unchanged')} unchanged.`);
  },
});
