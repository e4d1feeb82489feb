// Connections: the team's provider accounts, and when each last delivered.
import { type ConnectionDto } from '../api.js';
import { useAppEnv, useBodyHeight, useKeysActive } from '../context.js';
import { formatTime, plural } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useListCursor, usePolling, useScreenKeys } from '../hooks.js';
import { type ColumnSpec, Table } from '../table.js';
import { pollEmpty, pollSummary } from '../poll-text.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'n', what: 'connect a provider account: webhook URL and secret' },
  { keys: 'enter', what: "the connection's recent deliveries, rejected ones too" },
  { keys: 'R', what: 'refresh now' },
];

const COLUMNS: readonly ColumnSpec<ConnectionDto>[] = [
  { header: 'NAME', value: (c) => c.name },
  { header: 'PROVIDER', width: 9, value: (c) => c.provider },
  { header: 'LAST DELIVERY', width: 16, value: (c) => (c.last_delivery_at ? formatTime(c.last_delivery_at) : 'never'), color: (c) => (c.last_delivery_at ? undefined : 'gray') },
  { header: 'ID', value: (c) => c.id },
];

export function ConnectionsScreen() {
  const env = useAppEnv();
  const active = useKeysActive();
  const height = useBodyHeight();
  const poll = usePolling(() => env.api.listConnections(), { intervalMs: env.refreshMs, active });
  const rows = [...(poll.data ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const [index, onListKey, , current] = useListCursor(rows.length, height - 2, rows.map((c) => c.id));

  useScreenKeys((input, key) => {
    if (onListKey(input, key)) return true;
    if (input === 'n') env.nav.push({ name: 'connection-new' });
    else if (input === 'R') poll.reload();
    else if (key.return && rows[current()]) env.nav.push({ name: 'connection', connection: rows[current()] });
    else return false;
    return true;
  });

  const right = pollSummary(poll, plural(rows.length, 'connection'), { updatedWord: true });
  return (
    <Frame
      title={['Connections']}
      right={right}
      hints="n new · enter deliveries · R refresh · esc back"
      help={HELP}
      message={poll.error ? { kind: 'error', text: poll.error.text } : null}
    >
      <Table
        columns={COLUMNS}
        rows={rows}
        selected={index}
        height={height}
        rowKey={(c) => c.id}
        empty={pollEmpty(poll, 'no connections yet: press n to connect a provider')}
      />
    </Frame>
  );
}
