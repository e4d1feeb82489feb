// The flags `svc automations create` and `update` share, and how they become an AutomationSpec.
// Each trigger flag (--cron, --at, --event-type) adds one trigger, each time it is given; --tz
// qualifies every --cron/--at, and --provider, --connection and --filter every --event-type. On
// `update` the qualifiers alone edit the automation's current triggers of their kind.
import { type OptionDefinition, repeatable } from '../command.js';
import { type Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readTextInput } from '../lib/text-input.js';
import { readStructuredFile } from '../lib/structured-file.js';
import { AUTOMATION_STATUSES } from '../../shared/api-values.js';
import {
  type AutomationSpec,
  type AutomationStatus,
  entriesOfDocuments,
  type EventContent,
  eventContent,
  filterFromValue,
  Problems,
  type ScheduleContent,
  scheduleContent,
  specFromDocument,
  type TriggerContent,
} from './spec.js';
import { timeZoneProblem } from './schedule.js';
import { loadFilterCheck } from './filter-check.js';

export interface SpecFlags extends Record<string, unknown> {
  file?: string;
  name?: string;
  prompt?: string;
  promptFile?: string;
  cron?: string[];
  tz?: string;
  at?: string[];
  eventType?: string[];
  provider?: string;
  connection?: string;
  filter?: string[];
  environment?: string;
  status?: AutomationStatus;
}

export const SPEC_OPTIONS: readonly OptionDefinition[] = [
  { flags: '-f, --file <path>', description: 'the automation as JSON or YAML (the API body; `-` reads stdin); flags given too override its fields' },
  { flags: '--name <name>', description: 'name, unique in the team (case-insensitive)' },
  { flags: '--prompt <text>', description: 'the prompt each run starts with' },
  { flags: '--prompt-file <path>', description: 'read the prompt from PATH (`-` reads stdin)', conflicts: ['prompt'] },
  { flags: '--cron <expr>', description: "schedule trigger: five cron fields, 'minute hour day-of-month month day-of-week' (repeatable)", parse: repeatable },
  { flags: '--tz <zone>', description: 'IANA time zone of --cron and --at (default UTC; update: a replaced schedule keeps its zone)' },
  { flags: '--at <time>', description: 'one-off schedule trigger: ISO 8601 time, with Z or an offset, or local time in --tz (repeatable)', parse: repeatable },
  { flags: '--event-type <type>', description: 'event trigger: the event type it listens to (repeatable; the qualifiers below apply to each)', parse: repeatable },
  { flags: '--provider <provider>', description: 'provider of --event-type (default generic)' },
  { flags: '--connection <id>', description: 'only events with this connection_id match --event-type' },
  { flags: '--filter <expr>', description: "event filter 'JSONPATH OPERATOR VALUE' (repeatable; all must pass)", parse: repeatable },
  { flags: '--environment <id|slug>', description: "environment the runs use (create: default the team's default)" },
  { flags: '--status <status>', description: 'whether it runs (create: default active)', choices: AUTOMATION_STATUSES },
];

const SCHEDULE_NAMES = { cron: '--cron', at: '--at', timezone: '--tz' };
const EVENT_NAMES = { event_type: '--event-type', provider: '--provider', connection_id: '--connection', filters: '--filter' };

/** The triggers the trigger flags describe, each checked (one-off times must lie ahead). */
export function triggersFromFlags(flags: SpecFlags, problems: Problems, now: Date): TriggerContent[] {
  const triggers: TriggerContent[] = [];
  for (const cron of flags.cron ?? []) {
    const t = scheduleContent({ cron, timezone: flags.tz }, problems, SCHEDULE_NAMES);
    if (t) triggers.push(t);
  }
  for (const at of flags.at ?? []) {
    const t = scheduleContent({ at, timezone: flags.tz }, problems, SCHEDULE_NAMES);
    if (t && Date.parse(t.one_off_at!) <= now.getTime()) problems.add(`--at ${at} is in the past (${t.one_off_at}); a one-off must lie ahead`);
    else if (t) triggers.push(t);
  }
  for (const eventType of flags.eventType ?? []) {
    const t = eventContent(
      { event_type: eventType, provider: flags.provider, connection_id: flags.connection, filters: flags.filter },
      problems,
      EVENT_NAMES,
    );
    if (t) triggers.push(t);
  }
  return triggers;
}

export const hasTriggerFlag = (f: SpecFlags) => f.cron !== undefined || f.at !== undefined || f.eventType !== undefined;
export const hasScheduleQualifier = (f: SpecFlags) => f.tz !== undefined;
export const hasEventQualifier = (f: SpecFlags) => f.provider !== undefined || f.connection !== undefined || f.filter !== undefined;

/**
 * The current triggers with the qualifier flags applied (`update --tz Europe/Berlin` moves every
 * schedule trigger to that zone). Problems when a qualifier has no trigger of its kind to edit.
 */
export function editTriggers(current: readonly TriggerContent[], flags: SpecFlags, problems: Problems): TriggerContent[] {
  const schedules = current.filter((t) => t.kind === 'schedule');
  const events = current.filter((t) => t.kind === 'event');
  if (hasScheduleQualifier(flags) && schedules.length === 0) problems.addUsage('--tz: this automation has no schedule trigger (add one with --cron or --at)');
  if (hasEventQualifier(flags) && events.length === 0) problems.addUsage('--provider, --connection and --filter: this automation has no event trigger (add one with --event-type)');
  return current.map((t): TriggerContent => {
    if (t.kind === 'schedule' && flags.tz !== undefined) {
      return (
        scheduleContent(
          { cron: t.cron_expression, at: t.one_off_at, timezone: flags.tz, enabled: t.enabled },
          problems,
          SCHEDULE_NAMES,
        ) ?? t
      ) satisfies ScheduleContent;
    }
    if (t.kind === 'event' && hasEventQualifier(flags)) {
      return (
        eventContent(
          {
            event_type: t.event_type,
            provider: flags.provider ?? t.provider,
            connection_id: flags.connection ?? t.connection_id,
            filters: flags.filter ?? t.filters,
            enabled: t.enabled,
          },
          problems,
          EVENT_NAMES,
        ) ?? t
      ) satisfies EventContent;
    }
    return t;
  });
}

export interface FlagSpec {
  spec: AutomationSpec;
  /** --environment as given (an id or a slug), resolved by the command */
  environment?: string;
}

/**
 * The spec from -f FILE (when given) with the flags on top. Trigger flags replace the file's
 * triggers. Qualifier flags without a trigger flag are left for `update` to apply (see
 * editTriggers); `create` refuses them.
 */
export async function specFromFlags(ctx: Context, flags: SpecFlags, now: Date): Promise<FlagSpec> {
  const problems = new Problems();
  let spec: AutomationSpec = {};
  if (flags.file !== undefined || flags.filter !== undefined) await loadFilterCheck();
  if (flags.file !== undefined && flags.promptFile === '-' && flags.file === '-') {
    throw new UsageError('-f - and --prompt-file - both read stdin: give one of them a file');
  }
  if (flags.file !== undefined) {
    const file = await readStructuredFile(ctx, flags.file);
    const entries = entriesOfDocuments(file.documents);
    if (entries.length !== 1) {
      throw new UsageError(`${file.name} holds ${entries.length} automations; this command takes one (use \`svc automations apply -f\` for several)`);
    }
    spec = specFromDocument(entries[0], file.name, problems);
  }
  if (flags.name !== undefined) {
    if (flags.name.trim() === '') problems.add('--name must not be empty');
    spec.name = flags.name;
  }
  if (flags.prompt !== undefined || flags.promptFile !== undefined) {
    spec.prompt = await readTextInput(ctx, { inline: flags.prompt, file: flags.promptFile }, { inline: '--prompt', file: '--prompt-file' });
  }
  if (flags.status !== undefined) spec.status = flags.status;
  if (hasTriggerFlag(flags)) {
    // With trigger flags the triggers are new; a qualifier must have its own trigger among them.
    if (hasEventQualifier(flags) && flags.eventType === undefined) problems.addUsage('--provider, --connection and --filter go with --event-type');
    if (flags.tz !== undefined && flags.cron === undefined && flags.at === undefined) problems.addUsage('--tz goes with --cron or --at');
    const triggers = triggersFromFlags(flags, problems, now);
    if (problems.empty) spec.triggers = triggers;
  } else if (flags.filter !== undefined) {
    // A filter is checked now even when update applies it later: before any request.
    for (const f of flags.filter) filterFromValue(f, '--filter', problems);
  }
  if (flags.tz !== undefined && flags.cron === undefined && flags.at === undefined) {
    const zone = timeZoneProblem(flags.tz, '--tz');
    if (zone) problems.add(zone);
  }
  problems.throwIfAny('the automation is not valid');
  return { spec, environment: flags.environment };
}
