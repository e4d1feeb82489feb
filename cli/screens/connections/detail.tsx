// One connection: where its provider sends, and its recent deliveries with each one's status and
// reason. Rejected ones are the point of this screen (a wrong secret, a stale timestamp), so they
// are marked ✗ and red, and the selected delivery's whole reason shows below the list.
import { Text } from '../text.js';
import { type ConnectionDto, type DeliveryDto } from '../api.js';
import { useAppEnv, useBodyHeight, useColor, useKeysActive } from '../context.js';
import { formatTime, plural, wrap } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useListCursor, usePolling, useScreenKeys } from '../hooks.js';
import { type ColumnSpec, Table } from '../table.js';
import { pollEmpty, pollSummary } from '../poll-text.js';

const HELP: readonly HelpEntry[] = [
  { keys: '↑ ↓  j k', what: 'select a delivery: its whole reason shows below' },
  { keys: 'R', what: 'refresh now' },
  { keys: 'svc connections test ID --event TYPE', what: 'send a signed sample delivery (from a shell)' },
];

/** Lines below the list for the selected delivery's whole reason (a rejected one's says what to fix). */
const REASON_LINES = 3;

/** Deliveries fetched: the newest, as `svc connections deliveries` shows by default. */
const DELIVERIES = 50;

const STATUS_MARK: Record<DeliveryDto['status'], string> = { accepted: '✓ accepted', duplicate: '= duplicate', rejected: '✗ rejected' };
const STATUS_COLOR: Record<DeliveryDto['status'], string | undefined> = { accepted: 'green', duplicate: 'gray', rejected: 'red' };

const COLUMNS: readonly ColumnSpec<DeliveryDto>[] = [
  { header: 'RECEIVED', width: 16, value: (d) => formatTime(d.received_at) },
  { header: 'STATUS', width: 11, value: (d) => STATUS_MARK[d.status], color: (d) => STATUS_COLOR[d.status] },
  { header: 'EVENT TYPE', width: 22, value: (d) => d.event_type ?? '-', color: (d) => (d.status === 'rejected' ? 'red' : undefined) },
  { header: 'REASON', value: (d) => d.reason, color: (d) => (d.status === 'rejected' ? 'red' : undefined) },
];

export function ConnectionDetailScreen({ connection }: { connection: ConnectionDto }) {
  const env = useAppEnv();
  const color = useColor();
  const active = useKeysActive();
  const height = useBodyHeight();
  const poll = usePolling(() => env.api.listDeliveries(connection.id, DELIVERIES), { intervalMs: env.refreshMs, active });
  const rows = poll.data ?? [];
  const rejected = rows.filter((d) => d.status === 'rejected').length;
  // 4 lines of the connection, 1 blank, REASON_LINES for the selected delivery's reason
  const tableHeight = Math.max(3, height - 5 - REASON_LINES);
  const [index, onListKey] = useListCursor(rows.length, tableHeight - 1, rows.map((d) => d.id));
  const selected = rows[index] as DeliveryDto | undefined;

  useScreenKeys((input, key) => {
    if (onListKey(input, key)) return true;
    if (input === 'R') {
      poll.reload();
      return true;
    }
    return false;
  });

  const counts = `${plural(rows.length, 'delivery', 'deliveries')}${rejected ? ` · ${rejected} rejected` : ''}`;
  const right = pollSummary(poll, counts);
  const reason = selected ? wrap(`${STATUS_MARK[selected.status]} ${selected.delivery_id ?? '(no delivery id)'}: ${selected.reason}`, env.columns).slice(0, REASON_LINES) : [];
  return (
    <Frame
      title={['Connections', connection.name]}
      right={right}
      hints="j/k select · R refresh · esc back"
      help={HELP}
      message={poll.error ? { kind: 'error', text: poll.error.text } : null}
    >
      <Text wrap="truncate">
        <Text dimColor>{'Provider  '}</Text>
        {`${connection.provider}${connection.external_id ? ` · external id ${connection.external_id}` : ''} · id ${connection.id}`}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'URL       '}</Text>
        {connection.webhook_url}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'Secret    '}</Text>
        {`${connection.secret_prefix}… (shown once, at creation)`}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'Created   '}</Text>
        {formatTime(connection.created_at)}
      </Text>
      <Text> </Text>
      <Table
        columns={COLUMNS}
        rows={rows}
        selected={index}
        height={tableHeight}
        rowKey={(d) => d.id}
        empty={pollEmpty(poll, `no deliveries yet: point ${connection.provider} at the URL above`)}
      />
      {reason.map((line, i) => (
        <Text key={i} wrap="truncate" color={selected?.status === 'rejected' ? color('red') : undefined}>
          {line}
        </Text>
      ))}
    </Frame>
  );
}
