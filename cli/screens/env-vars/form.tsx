// Set an env var: name, environment, secret or not, and the value in a masked field. The value
// is sent once and forgotten; the screen never shows it, not even while it is typed.
import { Text } from '../text.js';
import { useState } from 'react';
import { ENV_VAR_NAME_PATTERN } from '../../../shared/api-values.js';
import { type Flash, useAppEnv, useKeysActive } from '../context.js';
import { FormView } from '../fields.js';
import { type FieldSpec, useForm } from '../form.js';
import { Frame, type HelpEntry } from '../frame.js';
import { type EnvironmentDto } from '../api.js';
import { useAction, usePolling, useScreenKeys } from '../hooks.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'tab  shift+tab', what: 'next / previous field' },
  { keys: '← →', what: 'on Environment and Secret: change' },
  { keys: 'enter', what: 'on Value: save' },
  { keys: 'ctrl+s', what: 'save' },
  { keys: 'Value', what: 'shown as • while typed, never shown afterwards' },
];

const NAME = new RegExp(ENV_VAR_NAME_PATTERN);

interface FormProps {
  varName?: string;
  environmentId?: string;
  isSecret?: boolean;
}

export function EnvVarFormScreen(props: FormProps) {
  const env = useAppEnv();
  const active = useKeysActive();
  const environments = usePolling(() => env.api.listEnvironments(), { intervalMs: 0, active });
  if (environments.data) return <EnvVarForm {...props} environments={environments.data} />;
  return <Loading error={environments.error?.text} title={props.varName} />;
}

function Loading({ error, title }: { error?: string; title?: string }) {
  useScreenKeys(() => false);
  return (
    <Frame
      title={['Env vars', title ? `Set ${title}` : 'Set']}
      hints="esc cancel"
      help={HELP}
      message={error ? { kind: 'error', text: error } : null}
    >
      <Text dimColor>loading environments…</Text>
    </Frame>
  );
}

function EnvVarForm(props: FormProps & { environments: EnvironmentDto[] }) {
  const env = useAppEnv();
  const action = useAction();
  const [message, setMessage] = useState<Flash | null>(null);
  const list = props.environments;
  const slugs = list.map((e) => e.slug);
  const initialSlug = list.find((e) => e.id === props.environmentId)?.slug ?? (slugs.includes('default') ? 'default' : slugs[0]);

  const save = async () => {
    const v = form.current();
    const name = v.name.trim();
    if (!NAME.test(name)) {
      setMessage({ kind: 'error', text: 'Name must start with a letter or _ and hold only letters, digits and _' });
      return;
    }
    // As `svc env set` at its prompt: an empty value is far more often an enter pressed too soon
    // than a wish to blank a variable (which `svc env set NAME --value ""` still does).
    if (v.value === '') {
      setMessage({ kind: 'error', text: 'No value entered: nothing was changed' });
      return;
    }
    const target = list.find((e) => e.slug === v.environment);
    if (!target) {
      setMessage({ kind: 'error', text: 'pick an environment' });
      return;
    }
    const r = await action.run('saving', () => env.api.setEnvVar({ name, value: v.value, isSecret: v.secret !== 'no', environmentId: target.id }));
    // The value leaves the screen's memory either way.
    form.setValue('value', '');
    if (!r.ok) {
      setMessage({ kind: 'error', text: r.error.text });
      return;
    }
    env.nav.back();
    env.nav.flash({ kind: 'ok', text: `Set ${name} in ${target.slug} (${r.value.is_secret ? 'secret' : 'plain'})` });
  };

  const fields: FieldSpec[] = [
    { id: 'name', kind: 'text', label: 'Name', placeholder: 'e.g. API_TOKEN' },
    { id: 'environment', kind: 'choice', label: 'Environment', options: slugs },
    { id: 'secret', kind: 'choice', label: 'Secret', options: ['yes', 'no'] },
    { id: 'value', kind: 'text', label: 'Value', mask: true, placeholder: '(hidden as you type)', onEnter: () => void save() },
    { id: 'save', kind: 'button', label: 'Save', onPress: () => void save() },
    { id: 'cancel', kind: 'button', label: 'Cancel', onPress: () => env.nav.back() },
  ];
  const form = useForm({
    fields,
    initial: { name: props.varName ?? '', environment: initialSlug ?? '', secret: props.isSecret === false ? 'no' : 'yes', value: '' },
    initialFocus: props.varName ? 'value' : 'name',
    onSubmit: () => void save(),
  });

  return (
    <Frame
      title={['Env vars', props.varName ? `Set ${props.varName}` : 'Set']}
      right={action.busy ? `${action.busy}…` : ''}
      hints="tab next field · enter/ctrl+s save · esc cancel"
      help={HELP}
      message={message}
    >
      <FormView form={form} fields={fields} width={env.columns} />
      <Text> </Text>
      <Text dimColor wrap="truncate">
        {props.varName ? 'Saving replaces the current value. ' : ''}The value is sealed by the daemon and never shown again.
      </Text>
    </Frame>
  );
}
