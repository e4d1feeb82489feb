// New automation: name, prompt (several lines), and one trigger: a cron schedule with a live
// preview of its next runs, or an event type with provider and filters. Problems show inline as
// they are typed; the daemon's own answer (a taken name, say) shows on the message line.
import { Box } from 'ink';
import { Text } from '../text.js';
import { type ReactNode, useState } from 'react';
import type { FilterOperator } from '../../../shared/filter-operators.js';
import { type CreateAutomationInput } from '../../../shared/schemas/automations.js';
import { type Flash, useAppEnv, useBodyHeight, useColor } from '../context.js';
import { FormView } from '../fields.js';
import { parseFilterLines } from '../filter-lines.js';
import { type FieldSpec, useForm } from '../form.js';
import { formatSlot, localTimeZone, plural, wrap } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useAction } from '../hooks.js';
import { previewSchedule } from '../schedule.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'tab  shift+tab', what: 'next / previous field (enter and ↑ ↓ also move)' },
  { keys: 'enter', what: 'in Prompt and Filters: a new line' },
  { keys: '← →', what: 'on Trigger: schedule or event' },
  { keys: 'ctrl+s', what: 'create (or the Create button)' },
  { keys: 'esc', what: 'cancel' },
  { keys: 'Cron', what: 'minute hour day-of-month month day-of-week, e.g. 0 9 * * 1-5' },
  { keys: 'Filters', what: 'one per line: JSONPATH OPERATOR VALUE, e.g. $.data.env equals prod' },
];

export type Draft = Record<'name' | 'prompt' | 'type' | 'cron' | 'zone' | 'eventType' | 'provider' | 'filters', string>;

/** The request body for a draft, or the first thing to fix. */
export function draftToBody(d: Draft, now: Date): { ok: true; body: CreateAutomationInput } | { ok: false; error: string } {
  if (d.name.trim() === '') return { ok: false, error: 'Name is empty' };
  if (d.prompt.trim() === '') return { ok: false, error: 'Prompt is empty' };
  if (d.type === 'schedule') {
    const preview = previewSchedule(d.cron, d.zone, now, 1);
    if (!preview.ok) return { ok: false, error: preview.error };
    return {
      ok: true,
      body: { name: d.name.trim(), prompt: d.prompt, triggers: [{ kind: 'schedule', cron_expression: d.cron.trim(), timezone: d.zone.trim() }] },
    };
  }
  if (d.eventType.trim() === '') return { ok: false, error: 'Event type is empty' };
  const filters = parseFilterLines(d.filters);
  if (!filters.ok) return { ok: false, error: filters.error };
  return {
    ok: true,
    body: {
      name: d.name.trim(),
      prompt: d.prompt,
      // parseFilterLines checked each filter (validateFilter): its operator is one of the API's.
      triggers: [{ kind: 'event', event_type: d.eventType.trim(), provider: d.provider.trim() || 'generic', filters: filters.filters.map(({ jsonPath, operator, value }) => (value == null ? { jsonPath, operator: operator as FilterOperator } : { jsonPath, operator: operator as FilterOperator, value })) }],
    },
  };
}

/** An inline problem, wrapped (up to three lines) rather than cut off. */
function ErrorLines({ text, color, width }: { text: string; color?: string; width: number }) {
  const lines = wrap(`✗ ${text}`, width).slice(0, 3);
  return (
    <>
      {lines.map((l, i) => (
        <Text key={i} color={color} wrap="truncate">
          {i > 0 ? `  ${l}` : l}
        </Text>
      ))}
    </>
  );
}

export function AutomationFormScreen() {
  const env = useAppEnv();
  const color = useColor();
  const height = useBodyHeight();
  const action = useAction();
  const [message, setMessage] = useState<Flash | null>(null);

  const submit = async () => {
    const draft = form.current() as Draft;
    const checked = draftToBody(draft, env.now());
    if (!checked.ok) {
      setMessage({ kind: 'error', text: checked.error });
      return;
    }
    setMessage({ kind: 'info', text: 'Creating…' });
    const r = await action.run('creating', () => env.api.createAutomation(checked.body));
    if (!r.ok) {
      setMessage({ kind: 'error', text: r.error.text });
      return;
    }
    env.nav.replace({ name: 'automation', id: r.value.id });
    env.nav.flash({ kind: 'ok', text: `Created ${r.value.name}` });
  };

  const base: FieldSpec[] = [
    { id: 'name', kind: 'text', label: 'Name', placeholder: 'e.g. Nightly report' },
    { id: 'prompt', kind: 'text', label: 'Prompt', multiline: true, rows: 3, placeholder: '(what the agent should do; enter starts a new line)' },
    { id: 'type', kind: 'choice', label: 'Trigger', options: ['schedule', 'event'] },
  ];
  const schedule: FieldSpec[] = [
    { id: 'cron', kind: 'text', label: 'Cron', placeholder: 'e.g. 0 9 * * 1-5 (minute hour day month weekday)' },
    { id: 'zone', kind: 'text', label: 'Time zone' },
  ];
  const event: FieldSpec[] = [
    { id: 'eventType', kind: 'text', label: 'Event type', placeholder: 'e.g. deploy.finished' },
    { id: 'provider', kind: 'text', label: 'Provider' },
    { id: 'filters', kind: 'text', label: 'Filters', multiline: true, rows: 2, placeholder: '(optional) e.g. $.data.env equals prod, one per line' },
  ];
  const buttons: FieldSpec[] = [
    { id: 'create', kind: 'button', label: 'Create', onPress: () => void submit() },
    { id: 'cancel', kind: 'button', label: 'Cancel', onPress: () => env.nav.back() },
  ];

  const [type, setType] = useState('schedule');
  const fields = [...base, ...(type === 'schedule' ? schedule : event), ...buttons];
  const form = useForm({
    fields,
    initial: { name: '', prompt: '', type: 'schedule', cron: '', zone: localTimeZone(), eventType: '', provider: 'generic', filters: '' },
    onSubmit: () => void submit(),
  });
  if (form.values.type !== type) setType(form.values.type);

  const v = form.values as Draft;
  let check: ReactNode;
  if (type === 'schedule') {
    const preview = v.cron.trim() === '' ? null : previewSchedule(v.cron, v.zone, env.now(), Math.max(1, Math.min(5, height - 12)));
    check = !preview ? (
      <Text dimColor>Next runs appear here as you type a cron expression.</Text>
    ) : preview.ok ? (
      <>
        <Text bold>{`Next runs (${v.zone.trim()})`}</Text>
        {preview.runs.map((r, i) => (
          <Text key={i}>{`  ${formatSlot(r, v.zone.trim())}`}</Text>
        ))}
      </>
    ) : (
      <ErrorLines text={preview.error} color={color('red')} width={env.columns} />
    );
  } else {
    const filters = parseFilterLines(v.filters);
    check = filters.ok ? (
      <Text dimColor wrap="truncate">
        {`Runs on ${v.provider.trim() || 'generic'} events of type ${v.eventType.trim() || '…'}${filters.filters.length ? ` where ${plural(filters.filters.length, 'filter')} pass` : ''}`}
      </Text>
    ) : (
      <ErrorLines text={filters.error} color={color('red')} width={env.columns} />
    );
  }

  return (
    <Frame
      title={['Automations', 'New']}
      right={action.busy ? `${action.busy}…` : ''}
      hints="tab next field · ctrl+s create · esc cancel"
      help={HELP}
      message={message}
    >
      <FormView form={form} fields={fields} width={env.columns} />
      <Text> </Text>
      <Box flexDirection="column">{check}</Box>
    </Frame>
  );
}
