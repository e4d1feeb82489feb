// Automations: every automation of the team with when it runs next (local time), refreshing.
import { type AutomationDto, automationsRefreshMs } from '../api.js';
import { useAppEnv, useBodyHeight, useKeysActive } from '../context.js';
import { formatTime, plural } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useListCursor, usePolling, useScreenKeys } from '../hooks.js';
import { type ColumnSpec, Table } from '../table.js';
import { AUTOMATION_KEYS, statusColor, useAutomationActions } from './actions.js';
import { pollEmpty, pollSummary } from '../poll-text.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'enter', what: 'details: triggers, next runs, recent runs, last error' },
  { keys: 'n', what: 'new automation' },
  ...AUTOMATION_KEYS,
  { keys: 'R', what: 'refresh now (the list also refreshes by itself)' },
  { keys: 'ERR column', what: '! when the last run failed' },
];

/** What the TYPE column says: the kinds of its triggers. */
const automationKey = (a: AutomationDto) => a.id;

export function triggerKinds(a: AutomationDto): string {
  const kinds = [...new Set(a.triggers.map((t) => t.kind))];
  return kinds.length ? kinds.join('+') : a.automation_type;
}

const COLUMNS: readonly ColumnSpec<AutomationDto>[] = [
  { header: 'NAME', value: (a) => a.name },
  { header: 'TYPE', width: 8, value: triggerKinds },
  { header: 'STATUS', width: 8, value: (a) => a.status, color: (a) => statusColor(a.status) },
  { header: 'NEXT RUN', width: 16, value: (a) => formatTime(a.next_run_at) },
  { header: 'RUNS', width: 5, value: (a) => String(a.total_runs), align: 'right' },
  { header: 'ERR', width: 3, value: (a) => (a.last_error ? '!' : ''), color: () => 'red' },
];

export function AutomationsScreen() {
  const env = useAppEnv();
  const active = useKeysActive();
  const height = useBodyHeight();
  const poll = usePolling(() => env.api.listAutomations(), {
    intervalMs: env.refreshMs,
    active,
    intervalFor: (all) => automationsRefreshMs(env.refreshMs, all.length),
  });
  const rows = poll.data ?? [];
  const [index, onListKey, , current] = useListCursor(rows.length, height - 2, rows.map(automationKey));
  const actions = useAutomationActions({ onChanged: poll.reload });
  useScreenKeys((input, key) => {
    if (actions.confirm.onKey(input)) return true;
    if (onListKey(input, key)) return true;
    const selected = rows[current()] as AutomationDto | undefined;
    if (input === 'n') env.nav.push({ name: 'automation-new' });
    else if (input === 'R') poll.reload();
    else if (!selected) return false;
    else if (key.return) env.nav.push({ name: 'automation', id: selected.id });
    else if (input === 'p') void actions.togglePause(selected);
    else if (input === 'r') void actions.runNow(selected);
    else if (input === 'd') actions.remove(selected);
    else return false;
    return true;
  });

  const right = pollSummary(poll, plural(rows.length, 'automation'), { updatedWord: true });
  const message = actions.message ?? (poll.error ? { kind: 'error' as const, text: poll.error.text } : null);

  return (
    <Frame
      title={['Automations']}
      right={right}
      hints="enter open · n new · p pause/resume · r run · d delete · esc back"
      help={HELP}
      message={message}
      confirm={actions.confirm.pending?.text}
    >
      <Table
        columns={COLUMNS}
        rows={rows}
        selected={index}
        height={height}
        rowKey={automationKey}
        empty={pollEmpty(poll, 'no automations yet: press n to create one')}
      />
    </Frame>
  );
}
