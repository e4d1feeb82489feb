// One automation: its triggers, the next five runs, its recent runs (sessions) and last error.
import { Box } from 'ink';
import { Text } from '../text.js';
import { type ReactNode } from 'react';
import { type AutomationDto, type SessionDto } from '../api.js';
import { useAppEnv, useBodyHeight, useColor, useKeysActive } from '../context.js';
import { formatClock, formatSlot, formatTime, localTimeZone, shortId, truncate } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useListCursor, usePolling, useScreenKeys } from '../hooks.js';
import { latestRunAt } from '../../automations/render.js';
import { upcomingRuns } from '../schedule.js';
import { sessionStatusColor } from '../sessions/status.js';
import { AUTOMATION_KEYS, statusColor, useAutomationActions } from './actions.js';

const HELP: readonly HelpEntry[] = [
  ...AUTOMATION_KEYS,
  { keys: '↑ ↓  j k', what: 'select a recent run' },
  { keys: 'enter', what: "open the selected run's transcript" },
  { keys: 'R', what: 'refresh now' },
];

const MAX_TRIGGERS = 3;
const RUNS = 5;

export function describeTrigger(t: AutomationDto['triggers'][number]): string {
  const off = t.enabled ? '' : ' (disabled)';
  if (t.kind === 'schedule') {
    const zone = t.timezone ?? 'UTC';
    if (t.cron_expression) return `schedule  ${t.cron_expression}  ${zone}${off}  runs ${t.total_runs}`;
    return `one-off   ${t.one_off_at ?? '-'}  ${zone}  ${t.status}${off}  runs ${t.total_runs}`;
  }
  const filters = (t.filters ?? []).map((f) => `${f.jsonPath} ${f.operator}${f.value !== undefined && f.value !== null ? ` ${JSON.stringify(f.value)}` : ''}`);
  const where = filters.length ? `  where ${filters.join(' and ')}` : '';
  const conn = t.connection_id ? ` (connection ${t.connection_id})` : '';
  return `event     ${t.provider ?? 'generic'}/${t.event_type ?? '?'}${conn}${off}  runs ${t.total_runs}${where}`;
}

export function AutomationDetailScreen({ id }: { id: string }) {
  const env = useAppEnv();
  const color = useColor();
  const active = useKeysActive();
  const height = useBodyHeight();
  const poll = usePolling(async () => {
    const [automation, runs] = await Promise.all([env.api.getAutomation(id), env.api.listRuns(id, RUNS)]);
    return { automation, runs };
  }, { intervalMs: env.refreshMs, active });
  const a = poll.data?.automation;
  const runs: SessionDto[] = poll.data?.runs ?? [];
  const [runIndex, onListKey, , currentRun] = useListCursor(runs.length);
  const actions = useAutomationActions({
    onChanged: poll.reload,
    onDeleted: (gone) => {
      env.nav.back();
      env.nav.flash({ kind: 'ok', text: `Deleted ${gone.name}` });
    },
  });

  useScreenKeys((input, key) => {
    if (actions.confirm.onKey(input)) return true;
    if (input === 'R') poll.reload();
    else if (!a) return false;
    else if (onListKey(input, key)) return true;
    else if (key.return && runs[currentRun()]) env.nav.push({ name: 'session', id: runs[currentRun()].session_id });
    else if (input === 'p') void actions.togglePause(a);
    else if (input === 'r') void actions.runNow(a);
    else if (input === 'd') actions.remove(a);
    else return false;
    return true;
  });

  const message = actions.message ?? (poll.error ? { kind: 'error' as const, text: poll.error.text } : null);
  const frame = (children: ReactNode) => (
    <Frame
      title={['Automations', a?.name ?? shortId(id)]}
      right={poll.updatedAt ? `updated ${formatClock(poll.updatedAt)}` : 'loading…'}
      hints="p pause/resume · r run · d delete · j/k runs · enter open run · esc back"
      help={HELP}
      message={message}
      confirm={actions.confirm.pending?.text}
    >
      {children}
    </Frame>
  );
  if (!a) return frame(<Text dimColor>{poll.error ? ' ' : 'loading…'}</Text>);

  const width = env.columns;
  const half = Math.floor(width / 2);
  const upcoming = upcomingRuns(a, env.now(), RUNS);
  const shownTriggers = a.triggers.slice(0, MAX_TRIGGERS);
  const noRunsText =
    a.status !== 'active'
      ? `none: the automation is ${a.status}`
      : a.triggers.some((t) => t.kind === 'schedule')
        ? 'none scheduled'
        : 'event-driven: runs when a matching event arrives';
  const listHeight = Math.max(2, Math.min(RUNS, height - 8 - shownTriggers.length));

  return frame(
    <>
      <Text wrap="truncate">
        <Text dimColor>{'Status   '}</Text>
        <Text color={color(statusColor(a.status))}>{a.status}</Text>
        {` · ${a.automation_type} · ${a.total_runs} runs · last run ${formatTime(latestRunAt(a))}`}
      </Text>
      <Text wrap="truncate">
        <Text dimColor>{'Prompt   '}</Text>
        {truncate(a.prompt, width - 9)}
      </Text>
      <Text bold>Triggers</Text>
      {shownTriggers.map((t) => (
        <Text key={t.id} wrap="truncate">{`  ${truncate(describeTrigger(t), width - 2)}`}</Text>
      ))}
      {a.triggers.length > MAX_TRIGGERS ? <Text dimColor>{`  … and ${a.triggers.length - MAX_TRIGGERS} more`}</Text> : null}
      <Box>
        <Box flexDirection="column" width={half}>
          <Text bold wrap="truncate">{`Next ${RUNS} runs (${localTimeZone()})`}</Text>
          {upcoming.length === 0 ? (
            <Text dimColor wrap="truncate">{`  ${noRunsText}`}</Text>
          ) : (
            upcoming.slice(0, listHeight).map((r, i) => <Text key={i} wrap="truncate">{`  ${formatSlot(r.at)}`}</Text>)
          )}
        </Box>
        <Box flexDirection="column" width={width - half}>
          <Text bold>Recent runs</Text>
          {runs.length === 0 ? (
            <Text dimColor>{'  none yet (r runs it now)'}</Text>
          ) : (
            runs.slice(0, listHeight).map((s, i) => (
              <Text key={s.session_id} inverse={i === runIndex} wrap="truncate">
                {i === runIndex ? '› ' : '  '}
                <Text color={i === runIndex ? undefined : color(sessionStatusColor(s.status))}>{s.status.padEnd(10)}</Text>
                {`${formatTime(s.created_at)}  ${shortId(s.session_id)}`}
              </Text>
            ))
          )}
        </Box>
      </Box>
      <Text wrap="truncate">
        <Text bold>{'Last error  '}</Text>
        {a.last_error ? (
          <Text color={color('red')}>{`${truncate(a.last_error, width - 32)} (${formatTime(a.last_error_at)})`}</Text>
        ) : (
          <Text dimColor>none</Text>
        )}
      </Text>
    </>,
  );
}
