// What can be done to one automation from its list row or its detail view: pause or resume, run
// now, delete (after a y). Each reports on the screen's message line.
import { useCallback, useState } from 'react';
import { type AutomationDto } from '../api.js';
import { type Flash, useAppEnv } from '../context.js';
import { shortId } from '../format.js';
import { useAction, useConfirm } from '../hooks.js';

export function useAutomationActions(options: { onChanged: () => void; onDeleted?: (a: AutomationDto) => void }) {
  const { api } = useAppEnv();
  const [message, setMessage] = useState<Flash | null>(null);
  const confirm = useConfirm();
  const action = useAction();
  const { onChanged, onDeleted } = options;

  const togglePause = useCallback(
    async (a: AutomationDto) => {
      const next = a.status === 'active' ? 'paused' : 'active';
      setMessage({ kind: 'info', text: `${next === 'paused' ? 'Pausing' : 'Resuming'} ${a.name}…` });
      const r = await action.run('saving', () => api.setAutomationStatus(a.id, next));
      setMessage(r.ok ? { kind: 'ok', text: `${next === 'paused' ? 'Paused' : 'Resumed'} ${a.name}` } : { kind: 'error', text: r.error.text });
      if (r.ok) onChanged();
    },
    [action, api, onChanged],
  );

  const runNow = useCallback(
    async (a: AutomationDto) => {
      setMessage({ kind: 'info', text: `Starting ${a.name}…` });
      const r = await action.run('starting', () => api.runAutomation(a.id));
      setMessage(
        r.ok
          ? { kind: 'ok', text: `Started session ${shortId(r.value.session_id)} for ${a.name} (${r.value.status})` }
          : { kind: 'error', text: r.error.text },
      );
      if (r.ok) onChanged();
    },
    [action, api, onChanged],
  );

  const remove = useCallback(
    (a: AutomationDto) => {
      setMessage(null);
      confirm.ask(`Delete automation "${a.name}"? Its triggers stop at once`, () => {
        void (async () => {
          setMessage({ kind: 'info', text: `Deleting ${a.name}…` });
          const r = await action.run('deleting', () => api.deleteAutomation(a.id));
          if (!r.ok) {
            setMessage({ kind: 'error', text: r.error.text });
            return;
          }
          setMessage({ kind: 'ok', text: `Deleted ${a.name}` });
          if (onDeleted) onDeleted(a);
          else onChanged();
        })();
      });
    },
    [action, api, confirm, onChanged, onDeleted],
  );

  return { message, setMessage, confirm, togglePause, runNow, remove, busy: action.busy };
}

export const AUTOMATION_KEYS = [
  { keys: 'p', what: 'pause or resume' },
  { keys: 'r', what: 'run now (starts a session from the prompt)' },
  { keys: 'd', what: 'delete (asks first)' },
] as const;

export const statusColor = (status: string) => (status === 'active' ? 'green' : status === 'paused' ? 'yellow' : 'gray');
