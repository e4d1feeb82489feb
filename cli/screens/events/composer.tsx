// Compose an event and either dry-run it (which automations would match, and the condition that
// fails for the others) or send it (what was dispatched, with idempotency keys).
import { Box } from 'ink';
import { Text } from '../text.js';
import { randomUUID } from 'node:crypto';
import { type ReactNode, useRef, useState } from 'react';
import { type SendEventInput } from '../../../shared/schemas/events.js';
import { type EventResultDto } from '../api.js';
import { type Flash, useAppEnv, useBodyHeight, useColor, useKeysActive } from '../context.js';
import { FormView } from '../fields.js';
import { type FieldSpec, useForm } from '../form.js';
import { entryRows } from '../entry.js';
import { shortId, wrap } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useAction, usePolling } from '../hooks.js';
import { Spinner } from '../spinner.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'tab  shift+tab', what: 'next / previous field' },
  { keys: 'enter', what: 'in Data: a new line' },
  { keys: 'ctrl+r', what: 'dry run: what would match, and why not' },
  { keys: 'ctrl+s', what: 'send the event' },
  { keys: 'Id', what: 'optional: resending an id does not dispatch twice' },
];

export type DataCheck = { ok: true; data: Record<string, unknown> } | { ok: false; error: string };

export function parseEventData(text: string): DataCheck {
  if (text.trim() === '') return { ok: true, data: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `data is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'data must be a JSON object ({...})' };
  return { ok: true, data: value as Record<string, unknown> };
}

const LABEL_WIDTH = 12;

/** Why an automation does not match, without the "trigger of NAME:" its row already says. */
export function failedCondition(name: string, failed: string | null): string {
  if (!failed) return 'does not match';
  const prefix = `trigger of ${JSON.stringify(name)}: `;
  return failed.startsWith(prefix) ? failed.slice(prefix.length) : failed;
}

interface Outcome {
  dryRun: boolean;
  result: EventResultDto;
}

export function EventComposerScreen() {
  const env = useAppEnv();
  const color = useColor();
  const active = useKeysActive();
  const height = useBodyHeight();
  const action = useAction();
  const [message, setMessage] = useState<Flash | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const automations = usePolling(() => env.api.listAutomations(), { intervalMs: 0, active });
  const names = new Map((automations.data ?? []).map((a) => [a.id, a.name]));
  // A blank Id gets one here, kept from a dry run to the send that follows it, so the keys the
  // dry run shows are the ones the send uses; a new one after each send (a new event).
  const pickedId = useRef<string | null>(null);

  const go = async (dryRun: boolean) => {
    const v = form.current();
    if (v.type.trim() === '') {
      setMessage({ kind: 'error', text: 'Type is empty' });
      return;
    }
    const data = parseEventData(v.data);
    if (!data.ok) {
      setMessage({ kind: 'error', text: data.error });
      return;
    }
    const body: SendEventInput = { event_type: v.type.trim(), data: data.data };
    if (v.provider.trim()) body.provider = v.provider.trim();
    body.id = v.id.trim() || (pickedId.current ??= randomUUID());
    setMessage(null);
    const r = await action.run(dryRun ? 'dry run' : 'sending', () => env.api.sendEvent(body, { dryRun }));
    if (!r.ok) {
      setMessage({ kind: 'error', text: r.error.text });
      return;
    }
    setOutcome({ dryRun, result: r.value });
    if (!dryRun) {
      pickedId.current = null;
      automations.reload();
    }
  };

  const fields: FieldSpec[] = [
    { id: 'type', kind: 'text', label: 'Type', placeholder: 'e.g. deploy.finished' },
    { id: 'provider', kind: 'text', label: 'Provider' },
    { id: 'id', kind: 'text', label: 'Id', placeholder: '(optional: blank picks one, kept until sent)' },
    { id: 'data', kind: 'text', label: 'Data', multiline: true, rows: 4 },
    { id: 'dry', kind: 'button', label: 'Dry run', onPress: () => void go(true) },
    { id: 'send', kind: 'button', label: 'Send', onPress: () => void go(false) },
  ];
  const form = useForm({
    fields,
    initial: { type: '', provider: 'generic', id: '', data: '{}' },
    onSubmit: () => void go(false),
    shortcuts: (input, key) => {
      if (key.ctrl && input === 'r') {
        void go(true);
        return true;
      }
      return false;
    },
  });

  const data = parseEventData(form.values.data);
  const resultLines = Math.max(2, height - 12);

  let results: ReactNode = <Text dimColor>ctrl+r: dry run · ctrl+s: send</Text>;
  if (action.busy) results = <Spinner label={`${action.busy}…`} />;
  else if (outcome) {
    const { result, dryRun } = outcome;
    const keyOf = new Map(result.dispatched.map((d) => [d.automationId, d.idempotencyKey]));
    const rows: ReactNode[] = [];
    if (dryRun) {
      for (const m of result.matches ?? []) {
        // The row names the automation already; the daemon's text starts with it too.
        const detail = m.matched ? `would dispatch · key ${keyOf.get(m.automationId) ?? '-'}` : failedCondition(m.name, m.failed);
        rows.push(
          ...entryRows({ id: m.automationId, mark: m.matched ? '✓' : '✗', markColor: color(m.matched ? 'green' : 'red'), name: m.name, detail, width: env.columns }),
        );
      }
    } else {
      for (const d of result.dispatched) {
        const name = names.get(d.automationId) ?? shortId(d.automationId);
        rows.push(...entryRows({ id: d.idempotencyKey, mark: '→', markColor: color('green'), name, detail: `key ${d.idempotencyKey}`, width: env.columns }));
      }
    }
    const shown = rows.length > resultLines - 1 ? [...rows.slice(0, resultLines - 2), <Text key="more" dimColor>{`  … and ${rows.length - resultLines + 2} more`}</Text>] : rows;
    results = (
      <>
        <Text wrap="truncate">
          <Text bold color={color(result.dispatched.length ? 'green' : 'yellow')}>{dryRun ? 'Dry run: ' : 'Sent: '}</Text>
          {result.reason}
        </Text>
        {shown}
      </>
    );
  }

  return (
    <Frame title={['Events', 'Compose']} hints="tab next field · ctrl+r dry run · ctrl+s send · esc back" help={HELP} message={message}>
      <FormView form={form} fields={fields.slice(0, 4)} width={env.columns} labelWidth={LABEL_WIDTH} />
      {wrap(data.ok ? '✓ data is a JSON object' : `✗ ${data.error}`, env.columns - LABEL_WIDTH - 2)
        .slice(0, 2)
        .map((line, i) => (
          <Text key={i} color={color(data.ok ? 'green' : 'red')} wrap="truncate">
            {' '.repeat(LABEL_WIDTH + (i > 0 ? 2 : 0))}
            {line}
          </Text>
        ))}
      <FormView form={form} fields={fields.slice(4)} width={env.columns} labelWidth={LABEL_WIDTH} />
      <Text> </Text>
      <Box flexDirection="column">{results}</Box>
    </Frame>
  );
}
