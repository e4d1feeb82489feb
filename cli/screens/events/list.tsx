// Events: what the team received lately, and whether it dispatched anything.
import { type ReceivedEventDto } from '../api.js';
import { useAppEnv, useBodyHeight, useKeysActive } from '../context.js';
import { formatTime, plural } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useListCursor, usePolling, useScreenKeys } from '../hooks.js';
import { type ColumnSpec, Table } from '../table.js';
import { pollEmpty, pollSummary } from '../poll-text.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'n', what: 'compose an event: dry run or send it' },
  { keys: 'enter', what: "the event's data, dispatches and reason" },
  { keys: 'R', what: 'refresh now' },
];

const COLUMNS: readonly ColumnSpec<ReceivedEventDto>[] = [
  { header: 'RECEIVED', width: 16, value: (e) => formatTime(e.received_at) },
  { header: 'TYPE', value: (e) => e.event_type },
  { header: 'PROVIDER', width: 10, value: (e) => e.provider },
  // TYPE and ID share what is left, so a narrow terminal cuts both alike rather than TYPE alone.
  { header: 'ID', value: (e) => e.id },
  {
    header: 'DISPATCHED',
    width: 10,
    value: (e) => (e.dispatched.length ? String(e.dispatched.length) : 'none'),
    color: (e) => (e.dispatched.length ? 'green' : 'gray'),
  },
];

/** One row per receipt: a retried event id is a row of its own. */
const eventKey = (e: ReceivedEventDto) => `${e.provider}:${e.id}@${e.received_at}`;

export function EventsScreen() {
  const env = useAppEnv();
  const active = useKeysActive();
  const height = useBodyHeight();
  const poll = usePolling(() => env.api.listEvents(100), { intervalMs: env.refreshMs, active });
  const rows = poll.data ?? [];
  const [index, onListKey, , current] = useListCursor(rows.length, height - 2, rows.map(eventKey));

  useScreenKeys((input, key) => {
    if (onListKey(input, key)) return true;
    if (input === 'n') env.nav.push({ name: 'event-new' });
    else if (input === 'R') poll.reload();
    else if (key.return && rows[current()]) env.nav.push({ name: 'event', event: rows[current()] });
    else return false;
    return true;
  });

  const right = pollSummary(poll, plural(rows.length, 'event'), { updatedWord: true });
  return (
    <Frame
      title={['Events']}
      right={right}
      hints="n compose · enter open · R refresh · esc back"
      help={HELP}
      message={poll.error ? { kind: 'error', text: poll.error.text } : null}
    >
      <Table
        columns={COLUMNS}
        rows={rows}
        selected={index}
        height={height}
        rowKey={eventKey}
        empty={pollEmpty(poll, 'no events received yet: press n to compose one')}
      />
    </Frame>
  );
}
