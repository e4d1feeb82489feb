import { apiPath } from '../../../shared/client.js';
import type { EnvVarDto } from '../../../shared/schemas/env-vars.js';
import type { EnvironmentDto } from '../../../shared/schemas/projects.js';
import { defineCommand } from '../../command.js';
import { ENV_SELECTOR_OPTIONS, type EnvSelectorOptions, envSelectorQuery } from '../../lib/env-selector.js';
import { yesNo } from '../../lib/format.js';

interface ListOptions extends EnvSelectorOptions, Record<string, unknown> {}

export const command = defineCommand<Record<string, never>, ListOptions>({
  name: 'env list',
  description: "List a team's environment variables (names only; values are never shown)",
  options: ENV_SELECTOR_OPTIONS,
  examples: [
    { description: 'Every variable of every environment of the team', command: 'svc env list' },
    { description: 'The variables of one environment, for a script', command: 'svc env list --env staging --json' },
  ],
  async run(_args, opts, ctx) {
    const team = await ctx.team();
    const client = await ctx.client();
    const vars = await client.get<EnvVarDto[]>(apiPath`/teams/${team}/env-vars`, envSelectorQuery(opts));
    if (ctx.out.json) return ctx.out.printJson(vars);
    // Slugs read better than ids; one more request, made only for people.
    const envs = await client.get<EnvironmentDto[]>(apiPath`/teams/${team}/environments`);
    const slugOf = new Map(envs.map((e) => [e.id, e.slug]));
    const rows = [...vars].sort(
      (a, b) => (slugOf.get(a.environment_id) ?? '').localeCompare(slugOf.get(b.environment_id) ?? '') || a.name.localeCompare(b.name),
    );
    ctx.out.table(
      rows,
      [
        { header: 'Name', value: (v) => v.name, keep: true },
        { header: 'Environment', value: (v) => slugOf.get(v.environment_id) ?? v.environment_id },
        { header: 'Secret', value: (v) => yesNo(v.is_secret) },
        { header: 'Value', value: (v) => (v.has_value ? 'set' : 'empty') },
      ],
      { empty: opts.env || opts.envId ? 'No variables in that environment.' : 'No variables in this team.' },
    );
  },
});
