// How the answer of an event's dispatch prints: `svc events send`, `svc events replay` and
// `svc connections test` all get one (CONTRACT §6's {accepted, dispatched, reason, matches?}).
import type { EventResultDto } from '../../shared/schemas/events.js';
import { type Context } from '../context.js';
import { NothingDispatchedError } from '../errors.js';
import { type Column } from '../output.js';
import { inert } from '../terminal-text.js';

type Match = NonNullable<EventResultDto['matches']>[number];
type Dispatched = EventResultDto['dispatched'][number];

const dispatchedColumns: Column<Dispatched>[] = [
  { header: 'Automation', value: (d) => d.automationId, keep: true },
  { header: 'Idempotency key', value: (d) => d.idempotencyKey, keep: true },
];

function matchColumns(result: EventResultDto): Column<Match>[] {
  const keys = new Map(result.dispatched.map((d) => [d.automationId, d.idempotencyKey]));
  return [
    { header: 'Name', value: (m) => m.name },
    { header: 'Automation', value: (m) => m.automationId, keep: true },
    { header: 'Result', value: (m) => (m.matched ? 'would dispatch' : 'no match'), style: (s, c) => (s === 'no match' ? c.dim(s) : c.green(s)) },
    { header: 'Detail', value: (m) => (m.matched ? keys.get(m.automationId) : m.failed) },
  ];
}

export interface PrintEventResultOptions {
  dryRun?: boolean;
  /** the done-message on stderr when the event was accepted (nothing for a dry run) */
  success: string;
  /** --require-dispatch: nothing dispatched is a failure (exit 9) */
  requireDispatch?: boolean;
}

/**
 * The dispatched automations as a table (a dry run: every automation and whether it matches), or
 * the reason nothing was dispatched; the JSON of the result with --json.
 */
export function printEventResult(ctx: Context, result: EventResultDto, opts: PrintEventResultOptions): void {
  ctx.out.result(result, () => {
    if (opts.dryRun) {
      // A table stays a table for awk and cut: the sentence then goes to stderr, below.
      if (result.matches?.length) ctx.out.table(result.matches, matchColumns(result));
      else ctx.out.line(`Dry run: ${inert(result.reason)}`);
      return;
    }
    if (result.dispatched.length > 0) ctx.out.table(result.dispatched, dispatchedColumns);
    else ctx.out.line(`Nothing dispatched: ${inert(result.reason)}`);
  });
  if (opts.dryRun) ctx.out.status(result.matches?.length ? `Dry run: ${inert(result.reason)}; nothing was started.` : 'Dry run: nothing was started.');
  else if (result.accepted) ctx.out.success(opts.success);
  if (opts.requireDispatch && !result.accepted) {
    throw new NothingDispatchedError(`no automation ${opts.dryRun ? 'would be' : 'was'} dispatched (--require-dispatch): ${result.reason}`);
  }
}
