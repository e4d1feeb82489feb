import type { AutomationDto, TriggerDto, TriggerInputDto } from '../../../shared/schemas/automations.js';
import { defineCommand } from '../../command.js';
import { UsageError } from '../../errors.js';
import { editTriggers, hasEventQualifier, hasScheduleQualifier, hasTriggerFlag, SPEC_OPTIONS, type SpecFlags, specFromFlags } from '../../automations/flags.js';
import { printAutomation } from '../../automations/render.js';
import { automationPath, resolveAutomationId, environmentToSend } from '../../automations/resolve.js';
import { assignTriggerIds, Problems, requestBody, triggerContentOf } from '../../automations/spec.js';

/**
 * `--cron` without `--tz` moves a schedule to another time, not to another zone: a cron trigger
 * that takes the place of a schedule trigger keeps that trigger's zone (UTC is for new ones).
 */
function keepZones(triggers: TriggerInputDto[], current: readonly TriggerDto[]): TriggerInputDto[] {
  return triggers.map((t) => {
    const was = t.id === undefined ? undefined : current.find((c) => c.id === t.id);
    if (t.kind !== 'schedule' || !t.cron_expression || was?.kind !== 'schedule' || !was.timezone) return t;
    return { ...t, timezone: was.timezone };
  });
}

export const command = defineCommand<{ automation: string }, SpecFlags>({
  name: 'automations update',
  description: 'Change an automation: only the fields given change',
  args: [{ name: 'automation', description: 'automation id or name', required: true }],
  options: SPEC_OPTIONS,
  examples: [
    { description: 'Rename an automation', command: 'svc automations update "Nightly report" --name "Nightly digest"' },
    { description: 'Move its schedule to another hour (the trigger keeps its run count)', command: 'svc automations update "Nightly digest" --cron "30 6 * * *"' },
    { description: 'Keep the schedule, change its time zone', command: 'svc automations update "Nightly digest" --tz America/Chicago' },
    { description: 'Replace the filters of its event trigger', command: "svc automations update \"Deploy review\" --filter '$.data.env in prod,staging'" },
    { description: 'Change whatever a file sets', command: 'svc automations update "Nightly digest" -f patch.yaml' },
  ],
  async run(args, flags, ctx) {
    const { spec, environment } = await specFromFlags(ctx, flags, new Date());
    const editsTriggers = !hasTriggerFlag(flags) && (hasScheduleQualifier(flags) || hasEventQualifier(flags));
    if (Object.keys(spec).length === 0 && environment === undefined && !editsTriggers) {
      throw new UsageError('nothing to change: pass the fields to change (see `svc help automations update`), or -f FILE');
    }

    const client = await ctx.client();
    const team = await ctx.team();
    const id = await resolveAutomationId(client, team, args.automation);
    const env = await environmentToSend(client, team, environment, spec.environment_id);
    if (env !== undefined) spec.environment_id = env;
    let triggers;
    if (spec.triggers !== undefined || editsTriggers) {
      // Triggers replace the set; reusing the ids of the current ones keeps their run counters.
      const current = await client.get<AutomationDto>(automationPath(team, id));
      let desired = spec.triggers ?? current.triggers.map(triggerContentOf);
      if (editsTriggers) {
        const problems = new Problems();
        desired = editTriggers(desired, flags, problems);
        problems.throwIfAny('the change is not valid');
      }
      triggers = assignTriggerIds(desired, current.triggers);
      if (flags.cron !== undefined && flags.tz === undefined) triggers = keepZones(triggers, current.triggers);
    }
    const updated = await client.patch<AutomationDto>(automationPath(team, id), requestBody(spec, triggers));
    ctx.out.result(updated, () => printAutomation(ctx, updated));
    ctx.out.success(`Updated automation "${updated.name}" (${updated.id}).`);
  },
});
