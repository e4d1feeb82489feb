// On CI hot paths: loads no YAML, no filter engine, no keychain when SVC_API_KEY is set.
import { randomUUID } from 'node:crypto';
import { apiPath } from '../../../shared/client.js';
import type { EventResultDto } from '../../../shared/schemas/events.js';
import { defineCommand } from '../../command.js';
import { InvalidInputError, UsageError } from '../../errors.js';
import { readJsonObjectArg, readsStdin } from '../../lib/json-arg.js';
import { printEventResult } from '../../lib/event-result.js';

interface SendOptions extends Record<string, unknown> {
  type: string;
  provider?: string;
  id?: string;
  connection?: string;
  source?: string;
  subject?: string;
  data?: string;
  metadata?: string;
  dryRun?: boolean;
  requireDispatch?: boolean;
}

export const command = defineCommand<Record<string, never>, SendOptions>({
  name: 'events send',
  description: 'Send an event to the team: start every automation it matches',
  options: [
    { flags: '--type <type>', description: 'event type, e.g. deploy.finished', required: true },
    { flags: '--provider <provider>', description: 'provider (default generic)' },
    { flags: '--id <id>', description: 'event id; resending an id starts nothing new (default: a new UUID)' },
    { flags: '--connection <id>', description: 'connection id (triggers bound to a connection match only it)' },
    { flags: '--source <source>', description: 'where the event comes from, e.g. a URL' },
    { flags: '--subject <subject>', description: 'what the event is about, e.g. a branch or a PR' },
    { flags: '--data <json>', description: 'the payload: a JSON object, @FILE, or - for stdin' },
    { flags: '--metadata <json>', description: 'metadata: a JSON object, @FILE, or - for stdin' },
    { flags: '--dry-run', description: 'say which automations would be started, and why the others would not; start nothing' },
    { flags: '--require-dispatch', description: 'exit 9 when no automation was dispatched' },
  ],
  examples: [
    { description: 'A deploy finished', command: 'svc events send --type deploy.finished --data \'{"env":"prod","sha":"4f2a9c1"}\'' },
    { description: 'From CI, with the payload from a file; fail the job when nothing listens', command: 'svc events send --type build.failed --provider github --id "$GITHUB_RUN_ID" --data @event.json --require-dispatch' },
    { description: 'Pipe the payload in', command: "jq '{env: \"staging\"}' <<< '{}' | svc events send --type deploy.finished --data -" },
    { description: 'Why does my automation not start? Ask without starting anything', command: 'svc events send --type deploy.finished --data \'{"env":"prod"}\' --dry-run' },
  ],
  async run(_args, opts, ctx) {
    if (readsStdin(opts.data) && readsStdin(opts.metadata)) throw new UsageError('--data and --metadata cannot both read stdin: give one of them @FILE');
    // An empty value is mostly an unset variable (`--id "$GITHUB_RUN_ID"` outside Actions): said
    // here as the flag it is (exit 2), not as the body field the daemon would refuse (exit 5).
    if (opts.type.trim() === '') throw new InvalidInputError('--type must not be empty');
    for (const [flag, value] of [['--id', opts.id], ['--provider', opts.provider], ['--connection', opts.connection]] as const) {
      if (value === '') throw new InvalidInputError(`${flag} must not be empty (an unset variable?)`);
    }
    const body: Record<string, unknown> = {
      event_type: opts.type,
      // An id chosen here makes the request safe to retry: a resent event starts nothing twice.
      id: opts.id ?? randomUUID(),
    };
    if (opts.provider !== undefined) body.provider = opts.provider;
    if (opts.connection !== undefined) body.connection_id = opts.connection;
    if (opts.source !== undefined) body.source = opts.source;
    if (opts.subject !== undefined) body.subject = opts.subject;
    if (opts.data !== undefined) body.data = await readJsonObjectArg(ctx, opts.data, '--data');
    if (opts.metadata !== undefined) body.metadata = await readJsonObjectArg(ctx, opts.metadata, '--metadata');

    const client = await ctx.client();
    const team = await ctx.team();
    const { data: result } = await client.request<EventResultDto>('POST', apiPath`/teams/${team}/webhooks/events`, {
      body,
      query: opts.dryRun ? { dry_run: 'true' } : undefined,
      idempotent: true,
    });

    printEventResult(ctx, result, { dryRun: opts.dryRun, success: `Event ${body.id as string}: ${result.reason}.`, requireDispatch: opts.requireDispatch });
  },
});
