import { apiPath } from '../../../shared/client.js';
import type { EnvVarDto } from '../../../shared/schemas/env-vars.js';
import { defineCommand } from '../../command.js';
import { UsageError } from '../../errors.js';
import { ENV_SELECTOR_OPTIONS, type EnvSelectorOptions, envLabel, envSelectorQuery } from '../../lib/env-selector.js';

interface SetOptions extends EnvSelectorOptions, Record<string, unknown> {
  value?: string;
  valueStdin?: boolean;
  /** undefined unless --secret or --no-secret was given: the daemon's default (secret) applies */
  secret?: boolean;
}

/** stdin without the one line ending `echo` or a file adds; the value is otherwise kept as is. */
function stripFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

export const command = defineCommand<{ name: string }, SetOptions>({
  name: 'env set',
  description: 'Create or replace an environment variable (the value is never printed)',
  args: [{ name: 'name', description: 'variable name (letters, digits and _, not starting with a digit)', required: true }],
  options: [
    {
      flags: '--value <value>',
      description: 'the value (visible in `ps` and shell history: prefer the prompt or --value-stdin)',
      conflicts: ['valueStdin'],
    },
    { flags: '--value-stdin', description: 'read the value from stdin (one final newline is dropped)', conflicts: ['value'] },
    { flags: '--secret', description: 'mark the value secret (the default for a new variable)' },
    { flags: '--no-secret', description: 'mark the value not secret' },
    ...ENV_SELECTOR_OPTIONS,
  ],
  examples: [
    { description: 'Type the value at a hidden prompt', command: 'svc env set GITHUB_TOKEN' },
    { description: 'From a script: the value never appears in the command line', command: 'printenv TOKEN | svc env set GITHUB_TOKEN --value-stdin --env staging' },
    { description: 'A value that is not secret', command: 'svc env set LOG_LEVEL --value debug --no-secret' },
  ],
  async run(args, opts, ctx) {
    const team = await ctx.team();
    let value: string;
    if (opts.value !== undefined) {
      value = opts.value;
    } else if (opts.valueStdin) {
      value = stripFinalNewline(await ctx.readStdin());
      if (value === '') throw new UsageError('stdin was empty: pipe the value in, or pass --value "" to set an empty value');
    } else {
      value = await ctx.prompt.secret(`Value for ${args.name} (input is hidden): `, '--value-stdin (e.g. `printenv VALUE | svc env set NAME --value-stdin`)');
      if (value === '') throw new UsageError('no value entered: nothing was changed');
    }
    const client = await ctx.client();
    const body: { value: string; is_secret?: boolean } = { value };
    if (opts.secret !== undefined) body.is_secret = opts.secret;
    const saved = await client.put<EnvVarDto>(apiPath`/teams/${team}/env-vars/${args.name}`, body, envSelectorQuery(opts));
    ctx.out.success(`Set ${saved.name} in ${envLabel(opts)} of team ${team}${saved.is_secret ? ' (secret)' : ''}.`);
    if (ctx.out.json) ctx.out.printJson(saved);
  },
});
