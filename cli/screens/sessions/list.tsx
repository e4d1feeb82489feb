// Sessions: every agent session of the team with its status, newest first.
import { useEffect, useRef, useState } from 'react';
import { type SessionDto } from '../api.js';
import { useAppEnv, useBodyHeight, useKeysActive } from '../context.js';
import { formatTime, oneLine, plural, shortId } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useListCursor, usePolling, useScreenKeys } from '../hooks.js';
import { type ColumnSpec, Table } from '../table.js';
import { sessionStatusColor } from './status.js';
import { pollEmpty, pollSummary } from '../poll-text.js';

const STATUS_FILTERS = [null, 'running', 'queued', 'completed', 'failed', 'cancelled'] as const;

const HELP: readonly HelpEntry[] = [
  { keys: 'enter', what: 'transcript: prompt, messages, event; send a follow-up' },
  { keys: 's', what: 'show one status, the next, ... then all' },
  { keys: 'R', what: 'refresh now' },
];

const sessionKey = (s: SessionDto) => s.session_id;

export function SessionsScreen() {
  const env = useAppEnv();
  const active = useKeysActive();
  const height = useBodyHeight();
  const [filter, setFilter] = useState(0);
  const status = STATUS_FILTERS[filter];
  const poll = usePolling(() => env.api.listSessions({ status: status ?? undefined, limit: 100 }), {
    intervalMs: env.refreshMs,
    active,
    key: status ?? 'all',
  });
  const rows = poll.data ?? [];
  // The names of the automations, read again only when a session names one not known yet (once
  // per such id): a team of 1,000 automations is six requests, too many to repeat every 5 s.
  const [namesWanted, setNamesWanted] = useState(0);
  const automations = usePolling(() => env.api.listAutomations(), { intervalMs: 0, active, key: String(namesWanted) });
  const asked = useRef(new Set<string>());
  const names = new Map((automations.data ?? []).map((a) => [a.id, a.name]));
  useEffect(() => {
    if (!automations.data) return;
    const fresh = rows.flatMap((s) => (s.automation_id && !names.has(s.automation_id) && !asked.current.has(s.automation_id) ? [s.automation_id] : []));
    if (fresh.length === 0) return;
    for (const id of fresh) asked.current.add(id);
    setNamesWanted((n) => n + 1);
  });
  const [index, onListKey, , current] = useListCursor(rows.length, height - 2, rows.map(sessionKey));

  const columns: ColumnSpec<SessionDto>[] = [
    { header: 'STATUS', width: 10, value: (s) => s.status, color: (s) => sessionStatusColor(s.status) },
    { header: 'CREATED', width: 16, value: (s) => formatTime(s.created_at) },
    { header: 'AUTOMATION', width: 18, value: (s) => (s.automation_id ? (names.get(s.automation_id) ?? shortId(s.automation_id)) : '-') },
    { header: 'PROMPT', value: (s) => oneLine(s.prompt) },
  ];

  useScreenKeys((input, key) => {
    if (onListKey(input, key)) return true;
    if (input === 's') setFilter((f) => (f + 1) % STATUS_FILTERS.length);
    else if (input === 'R') poll.reload();
    else if (key.return && rows[current()]) env.nav.push({ name: 'session', id: rows[current()].session_id });
    else return false;
    return true;
  });

  const showing = status ? `status ${status}` : 'all statuses';
  const right = pollSummary(poll, `${plural(rows.length, 'session')} · ${showing}`);
  return (
    <Frame
      title={['Sessions']}
      right={right}
      hints="enter transcript · s status filter · R refresh · esc back"
      help={HELP}
      message={poll.error ? { kind: 'error', text: poll.error.text } : null}
    >
      <Table
        columns={columns}
        rows={rows}
        selected={index}
        height={height}
        rowKey={sessionKey}
        empty={pollEmpty(poll, `no sessions with ${showing}`)}
      />
    </Frame>
  );
}
