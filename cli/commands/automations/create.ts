import type { AutomationDto } from '../../../shared/schemas/automations.js';
import { defineCommand } from '../../command.js';
import { InvalidInputError, UsageError } from '../../errors.js';
import { editTriggers, hasEventQualifier, hasScheduleQualifier, hasTriggerFlag, SPEC_OPTIONS, type SpecFlags, specFromFlags } from '../../automations/flags.js';
import { printAutomation } from '../../automations/render.js';
import { automationsPath, environmentToSend } from '../../automations/resolve.js';
import { Problems, requestBody } from '../../automations/spec.js';

export const command = defineCommand<Record<string, never>, SpecFlags>({
  name: 'automations create',
  description: 'Create an automation from flags or a JSON/YAML file',
  options: SPEC_OPTIONS,
  examples: [
    {
      description: 'Every weekday at 09:00 Berlin time',
      command: 'svc automations create --name "Standup notes" --prompt "Summarise yesterday\'s merged PRs" --cron "0 9 * * 1-5" --tz Europe/Berlin',
    },
    { description: 'Once, at a local time in a zone', command: 'svc automations create --name "Launch check" --prompt-file launch.md --at 2030-07-01T09:00 --tz America/New_York' },
    {
      description: 'On an event, only for production deploys',
      command: "svc automations create --name \"Deploy review\" --prompt \"Review the deploy\" --event-type deploy.finished --provider github --filter '$.data.env equals prod'",
    },
    {
      description: "On pull requests to main in one GitHub repository (its connection: `svc connections list`)",
      command: "svc automations create --name \"PR review\" --prompt \"Review the pull request\" --provider github --connection 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10 --event-type pull_request.opened --filter '$.data.pull_request.base.ref equals main'",
    },
    { description: 'From a file (the API body, JSON or YAML)', command: 'svc automations create -f nightly.yaml' },
    { description: 'Create it paused, to switch on later', command: 'svc automations create -f nightly.yaml --status paused' },
  ],
  async run(_args, flags, ctx) {
    const now = new Date();
    const { spec, environment } = await specFromFlags(ctx, flags, now);
    // Without a trigger flag, --tz and the event qualifiers edit the file's triggers.
    if (!hasTriggerFlag(flags) && (hasScheduleQualifier(flags) || hasEventQualifier(flags))) {
      if (!spec.triggers) {
        throw new UsageError(
          hasScheduleQualifier(flags) ? '--tz goes with --cron or --at' : '--provider, --connection and --filter go with --event-type',
        );
      }
      const problems = new Problems();
      spec.triggers = editTriggers(spec.triggers, flags, problems);
      problems.throwIfAny('the automation is not valid');
    }
    // As gh does: at a terminal, what the flags left out is asked for; a script gets the usage error.
    if (spec.triggers !== undefined && ctx.canPrompt) {
      if (spec.name === undefined) spec.name = await askUntilGiven(() => ctx.prompt.text('Name: ', '--name'));
      if (spec.prompt === undefined) spec.prompt = await askUntilGiven(() => ctx.prompt.text('Prompt (what the session is asked to do): ', '--prompt'));
    }
    const missing = [
      spec.name === undefined ? '--name' : null,
      spec.prompt === undefined ? '--prompt or --prompt-file' : null,
      spec.triggers === undefined ? 'a trigger (--cron, --at or --event-type)' : null,
    ].filter((m): m is string => m !== null);
    if (missing.length) throw new UsageError(`missing ${missing.join(', ')} (or give the automation with -f FILE)`);
    const past = spec.triggers!.find((t) => t.kind === 'schedule' && t.one_off_at !== null && Date.parse(t.one_off_at) <= now.getTime());
    if (past?.kind === 'schedule') throw new InvalidInputError(`one_off_at ${past.one_off_at} is in the past; a one-off must lie ahead`);

    const client = await ctx.client();
    const team = await ctx.team();
    const env = await environmentToSend(client, team, environment, spec.environment_id);
    if (env !== undefined) spec.environment_id = env;
    const created = await client.post<AutomationDto>(automationsPath(team), requestBody(spec));
    ctx.out.result(created, () => printAutomation(ctx, created));
    ctx.out.success(`Created automation "${created.name}" (${created.id}).`);
  },
});

/** The answer to a question asked again while it comes back blank. */
async function askUntilGiven(ask: () => Promise<string>): Promise<string> {
  for (;;) {
    const answer = await ask();
    if (answer !== '') return answer;
  }
}
