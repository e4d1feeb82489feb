// One received event: what it was, what it dispatched (with idempotency keys) and why.
import { Text } from '../text.js';
import { type ReceivedEventDto } from '../api.js';
import { useAppEnv, useBodyHeight, useColor, useKeysActive } from '../context.js';
import { entryRows } from '../entry.js';
import { formatTime, shortId, truncateIndented } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useListCursor, usePolling, useScreenKeys } from '../hooks.js';

const HELP: readonly HelpEntry[] = [{ keys: '↑ ↓  j k', what: 'scroll the data' }];

export function EventDetailScreen({ event }: { event: ReceivedEventDto }) {
  const env = useAppEnv();
  const color = useColor();
  const height = useBodyHeight();
  const width = env.columns;
  const active = useKeysActive();
  const automations = usePolling(() => env.api.listAutomations(), { intervalMs: 0, active });
  const names = new Map((automations.data ?? []).map((a) => [a.id, a.name]));
  const dispatched = event.dispatched.flatMap((d) =>
    entryRows({ id: d.idempotencyKey, mark: '→', name: names.get(d.automationId) ?? shortId(d.automationId), detail: `key ${d.idempotencyKey}`, width }),
  );
  const data = JSON.stringify(event.data, null, 2).split('\n');
  const fixed = 6 + Math.max(1, dispatched.length);
  const dataHeight = Math.max(1, height - fixed - 1);
  const [top, onScroll] = useListCursor(Math.max(1, data.length - dataHeight + 1));

  useScreenKeys((input, key) => onScroll(input, key));

  return (
    <Frame title={['Events', `${event.event_type} ${event.id}`]} hints="j/k scroll · esc back" help={HELP}>
      <Text wrap="truncate">
        <Text dimColor>{'Type      '}</Text>
        {`${event.event_type} · provider ${event.provider}${event.connection_id ? ` · connection ${event.connection_id}` : ''}`}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'Id        '}</Text>
        {`${event.id} · sent ${formatTime(event.time)} · received ${formatTime(event.received_at)}`}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'Result    '}</Text>
        <Text color={color(event.accepted ? 'green' : 'yellow')}>{event.accepted ? 'accepted' : 'not accepted'}</Text>
        {` · ${event.reason}`}
      </Text>
      <Text bold>Dispatched</Text>
      {event.dispatched.length === 0 ? <Text dimColor>{'  nothing'}</Text> : dispatched}
      <Text bold>{`Data${data.length > dataHeight ? ` (lines ${top + 1}-${Math.min(data.length, top + dataHeight)} of ${data.length})` : ''}`}</Text>
      {data.slice(top, top + dataHeight).map((line, i) => (
        <Text key={i} wrap="truncate">{`  ${truncateIndented(line, width - 2)}`}</Text>
      ))}
    </Frame>
  );
}
