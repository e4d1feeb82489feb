// Env vars: names per environment, secret or not. Values go in and never come back out, so
// there is nothing to show but whether one is set.
import { useState } from 'react';
import { type EnvironmentDto, type EnvVarDto } from '../api.js';
import { type Flash, useAppEnv, useBodyHeight, useKeysActive } from '../context.js';
import { plural } from '../format.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useAction, useConfirm, useListCursor, usePolling, useRefState, useScreenKeys } from '../hooks.js';
import { type ColumnSpec, Table } from '../table.js';
import { pollEmpty, pollSummary } from '../poll-text.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'n', what: 'set a variable (new, or replace a value)' },
  { keys: 'enter', what: 'set a new value for the selected variable' },
  { keys: 'd', what: 'unset the selected variable (asks first)' },
  { keys: 'e', what: 'show one environment, the next, ... then all' },
  { keys: 'R', what: 'refresh now' },
];

interface Row extends EnvVarDto {
  environment: string;
}

const COLUMNS: readonly ColumnSpec<Row>[] = [
  { header: 'NAME', value: (v) => v.name },
  { header: 'SECRET', width: 7, value: (v) => (v.is_secret ? 'secret' : 'plain'), color: (v) => (v.is_secret ? 'magenta' : undefined) },
  { header: 'VALUE', width: 7, value: (v) => (v.has_value ? 'set' : 'empty') },
  { header: 'ENVIRONMENT', width: 20, value: (v) => v.environment },
];

const varKey = (v: Row) => `${v.environment_id}/${v.name}`;

export function EnvVarsScreen() {
  const env = useAppEnv();
  const active = useKeysActive();
  const height = useBodyHeight();
  const poll = usePolling(
    async () => {
      const [environments, vars] = await Promise.all([env.api.listEnvironments(), env.api.listEnvVars()]);
      return { environments, vars };
    },
    { intervalMs: env.refreshMs, active },
  );
  const environments: EnvironmentDto[] = poll.data?.environments ?? [];
  const [filter, setFilter, getFilter] = useRefState<string | null>(null);
  const slugOf = new Map(environments.map((e) => [e.id, e.slug]));
  const rows: Row[] = (poll.data?.vars ?? [])
    .filter((v) => filter === null || v.environment_id === filter)
    .map((v) => ({ ...v, environment: slugOf.get(v.environment_id) ?? v.environment_id }))
    .sort((a, b) => a.environment.localeCompare(b.environment) || a.name.localeCompare(b.name));
  const [index, onListKey, , current] = useListCursor(rows.length, height - 2, rows.map(varKey));
  const confirm = useConfirm();
  const action = useAction();
  const [message, setMessage] = useState<Flash | null>(null);

  const unset = (v: Row) => {
    setMessage(null);
    confirm.ask(`Unset ${v.name} in ${v.environment}? Automations there lose it`, () => {
      void (async () => {
        const r = await action.run('unsetting', () => env.api.unsetEnvVar(v.name, v.environment_id));
        setMessage(r.ok ? { kind: 'ok', text: `Unset ${v.name} in ${v.environment}` } : { kind: 'error', text: r.error.text });
        poll.reload();
      })();
    });
  };

  useScreenKeys((input, key) => {
    if (confirm.onKey(input)) return true;
    if (onListKey(input, key)) return true;
    const selected = rows[current()] as Row | undefined;
    if (input === 'n') env.nav.push({ name: 'env-var-set', environmentId: filter ?? undefined });
    else if (input === 'R') poll.reload();
    else if (input === 'e') {
      const ids = environments.map((e) => e.id);
      const f = getFilter();
      const i = f === null ? -1 : ids.indexOf(f);
      setFilter(i + 1 < ids.length ? ids[i + 1] : null);
    } else if (!selected) return false;
    else if (key.return) env.nav.push({ name: 'env-var-set', varName: selected.name, environmentId: selected.environment_id, isSecret: selected.is_secret });
    else if (input === 'd') unset(selected);
    else return false;
    return true;
  });

  const showing = filter === null ? 'all environments' : `environment ${slugOf.get(filter) ?? filter}`;
  const right = pollSummary(poll, `${plural(rows.length, 'variable')} · ${showing}`);
  return (
    <Frame
      title={['Env vars']}
      right={right}
      hints="n set · enter new value · d unset · e environment · esc back"
      help={HELP}
      message={message ?? (poll.error ? { kind: 'error', text: poll.error.text } : null)}
      confirm={confirm.pending?.text}
    >
      <Table
        columns={COLUMNS}
        rows={rows}
        selected={index}
        height={height}
        rowKey={varKey}
        empty={pollEmpty(poll, `no variables in ${showing}: press n to set one`)}
      />
    </Frame>
  );
}
