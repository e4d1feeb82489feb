// One session: status, prompt, the event that started it, every message; and a follow-up field
// that sends a message, after which the session runs again.
import { type Key } from 'ink';
import { Text } from '../text.js';
import { useRef, useState } from 'react';
import { type SessionWithMessagesDto } from '../api.js';
import { type Flash, useAppEnv, useBodyHeight, useColor, useKeysActive } from '../context.js';
import { FormView } from '../fields.js';
import { type FieldSpec, useForm } from '../form.js';
import { formatTime, plural, shortId, wrap } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useAction, usePolling, useRefState } from '../hooks.js';
import { sessionStatusColor } from './status.js';

const HELP: readonly HelpEntry[] = [
  { keys: '↑ ↓  j k', what: 'scroll the transcript (pgup/pgdn a page, G the end)' },
  { keys: 'f  tab', what: 'write a follow-up' },
  { keys: 'enter', what: 'in the follow-up field: send it' },
  { keys: 'R', what: 'refresh now' },
];

interface Line {
  text: string;
  bold?: boolean;
  dim?: boolean;
  color?: string;
}

const LIVE = new Set(['queued', 'running']);
/** CONTRACT §3: a follow-up goes to a running or completed session only. */
const TAKES_FOLLOW_UPS = new Set(['running', 'completed']);

/** The transcript as lines of at most `width` characters. */
export function transcriptLines(s: SessionWithMessagesDto, width: number): Line[] {
  const lines: Line[] = [];
  const indent = (text: string, extra?: Partial<Line>) => wrap(text, width - 4).forEach((t) => lines.push({ text: `    ${t}`, ...extra }));
  lines.push({ text: 'Prompt', bold: true });
  indent(s.prompt);
  if (s.event) {
    const e = s.event as { event_type?: string; provider?: string; id?: string; data?: unknown };
    lines.push({ text: `Event  ${e.event_type ?? '?'} · ${e.provider ?? 'generic'} · id ${e.id ?? '-'}`, bold: true });
    indent(`data ${JSON.stringify(e.data ?? {})}`, { dim: true });
  }
  lines.push({ text: `Messages (${s.messages.length})`, bold: true });
  for (const m of s.messages) {
    lines.push({ text: `  ${m.role} · ${formatTime(m.created_at)}`, color: m.role === 'user' ? 'cyan' : m.role === 'assistant' ? 'green' : 'yellow' });
    indent(m.content || '(empty)');
  }
  return lines;
}

export function TranscriptScreen({ id }: { id: string }) {
  const env = useAppEnv();
  const color = useColor();
  const active = useKeysActive();
  const height = useBodyHeight();
  const action = useAction();
  const [message, setMessage] = useState<Flash | null>(null);
  const [live, setLive] = useState(true);
  const poll = usePolling(() => env.api.getSession(id), { intervalMs: live ? Math.min(env.refreshMs, 1000) : env.refreshMs, active });
  const s = poll.data;
  if (s && LIVE.has(s.status) !== live) setLive(LIVE.has(s.status));
  // "Follow-up sent: the session is running again" is no longer news once the turn is over.
  const seenStatus = useRef(s?.status);
  if (s && s.status !== seenStatus.current) {
    if (seenStatus.current !== undefined && LIVE.has(seenStatus.current) && !LIVE.has(s.status) && message?.kind === 'ok') setMessage(null);
    seenStatus.current = s.status;
  }
  const automation = usePolling(
    () => (s?.automation_id ? env.api.getAutomation(s.automation_id) : Promise.resolve(null)),
    { intervalMs: 0, active, key: s?.automation_id ?? '' },
  );

  const lines = s ? transcriptLines(s, env.columns) : [];
  const windowHeight = Math.max(1, height - 4);
  const maxTop = Math.max(0, lines.length - windowHeight);
  const maxTopRef = useRef(maxTop);
  maxTopRef.current = maxTop;
  // null: follow the end, as new messages arrive
  const [scroll, setScroll, getScroll] = useRefState<number | null>(null);
  const top = Math.min(scroll ?? maxTop, maxTop);

  const onTranscriptKey = (input: string, key: Key): boolean => {
    const max = maxTopRef.current;
    const current = Math.min(getScroll() ?? max, max);
    let next: number | null | undefined;
    if (key.upArrow || input === 'k') next = current - 1;
    else if (key.downArrow || input === 'j') next = current + 1;
    else if (key.pageUp) next = current - windowHeight;
    else if (key.pageDown) next = current + windowHeight;
    else if (key.home || input === 'g') next = 0;
    else if (key.end || input === 'G') next = null;
    else if (input === 'f' || input === 'i') {
      if (takesFollowUps) form.focusField('message');
      else setMessage({ kind: 'info', text: noFollowUps });
      return true;
    } else if (input === 'R') {
      poll.reload();
      return true;
    }
    if (next === undefined) return false;
    setScroll(next === null || next >= max ? null : Math.max(0, next));
    return true;
  };

  const send = async () => {
    const text = form.current().message;
    if (text.trim() === '') {
      setMessage({ kind: 'error', text: 'The follow-up is empty' });
      return;
    }
    setMessage({ kind: 'info', text: 'Sending…' });
    const r = await action.run('sending', () => env.api.followUp(id, text));
    if (!r.ok) {
      setMessage({ kind: 'error', text: r.error.text });
      return;
    }
    form.setValue('message', '');
    setScroll(null);
    setLive(true);
    setMessage({ kind: 'ok', text: 'Follow-up sent: the session is running again' });
    poll.reload();
  };

  // Offered only where the daemon takes one, rather than typed and then refused.
  const takesFollowUps = s !== undefined && TAKES_FOLLOW_UPS.has(s.status);
  const noFollowUps = `A ${s?.status ?? ''} session takes no follow-ups: only running and completed ones do`;
  const fields: FieldSpec[] = [
    { id: 'transcript', kind: 'view', label: 'Transcript', onKey: onTranscriptKey },
    ...(takesFollowUps
      ? [{ id: 'message', kind: 'text', label: 'Follow-up', placeholder: '(f or tab to write; enter sends)', onEnter: () => void send() } as const]
      : []),
  ];
  const form = useForm({ fields, initial: { message: '' }, initialFocus: 'transcript' });

  const name = automation.data?.name ?? (s?.automation_id ? shortId(s.automation_id) : null);
  return (
    <Frame
      title={['Sessions', shortId(id)]}
      right={s ? plural(s.messages.length, 'message') : 'loading…'}
      hints={form.focus === 'message' && takesFollowUps ? 'enter send · tab transcript · esc back' : takesFollowUps ? 'j/k scroll · f follow-up · R refresh · esc back' : 'j/k scroll · R refresh · esc back'}
      help={HELP}
      message={message ?? (poll.error ? { kind: 'error', text: poll.error.text } : null)}
    >
      {s ? (
        <>
          <Text wrap="truncate">
            <Text color={color(sessionStatusColor(s.status))} bold>{`● ${s.status}`}</Text>
            {`${name ? ` · automation ${name}` : ' · conversational'} · created ${formatTime(s.created_at)} · ${s.session_id}`}
          </Text>
          <Text color={color('red')} wrap="truncate">
            {s.last_error ? `Last error: ${s.last_error}` : ' '}
          </Text>
          {lines.slice(top, top + windowHeight).map((l, i) => (
            <Text key={top + i} bold={l.bold} dimColor={l.dim} color={l.color ? color(l.color) : undefined} wrap="truncate">
              {l.text}
            </Text>
          ))}
          {Array.from({ length: Math.max(0, windowHeight - (lines.length - top)) }, (_, i) => (
            <Text key={`pad${i}`}> </Text>
          ))}
          <Text dimColor wrap="truncate">{lines.length > windowHeight ? `lines ${top + 1}-${Math.min(lines.length, top + windowHeight)} of ${lines.length}` : ' '}</Text>
          {takesFollowUps ? (
            <FormView form={form} fields={fields} width={env.columns} />
          ) : (
            <Text dimColor wrap="truncate">
              {LIVE.has(s.status) ? 'Follow-up: once the session is running' : `Follow-up: none (${s.status} sessions take no follow-ups)`}
            </Text>
          )}
        </>
      ) : (
        <Text dimColor>{poll.error ? ' ' : 'loading…'}</Text>
      )}
    </Frame>
  );
}
