// Connect a provider account: provider, name and (optionally) the provider's account id. The
// answer holds the secret, which the daemon shows only this once: the screen shows it with the
// webhook URL until the person leaves, and keeps it where the CLI keeps the profile's key, for
// `svc connections test`.
import { Text } from '../text.js';
import { useState } from 'react';
import type { ConnectionProvider } from '../../../shared/schemas/connections.js';
import { CONNECTION_PROVIDERS, PROVIDER_TITLES } from '../../../shared/api-values.js';
import { type ConnectionWithSecretDto } from '../api.js';
import { type Flash, useAppEnv, useColor } from '../context.js';
import { FormView } from '../fields.js';
import { type FieldSpec, useForm } from '../form.js';
import { Frame, type HelpEntry } from '../frame.js';
import { useAction, useScreenKeys } from '../hooks.js';

const HELP: readonly HelpEntry[] = [
  { keys: 'tab  shift+tab', what: 'next / previous field' },
  { keys: '← →', what: 'on Provider: change' },
  { keys: 'ctrl+s', what: 'create' },
  { keys: 'External id', what: "the provider's account or installation id (optional)" },
];

export function ConnectionFormScreen() {
  const [created, setCreated] = useState<{ connection: ConnectionWithSecretDto; stored: string } | null>(null);
  if (created) return <CreatedView {...created} />;
  return <ConnectionForm onCreated={(connection, stored) => setCreated({ connection, stored })} />;
}

function ConnectionForm({ onCreated }: { onCreated: (c: ConnectionWithSecretDto, stored: string) => void }) {
  const env = useAppEnv();
  const action = useAction();
  const [message, setMessage] = useState<Flash | null>(null);

  const create = async () => {
    const v = form.current();
    const name = v.name.trim();
    if (name === '') {
      setMessage({ kind: 'error', text: 'Name is needed (unique in the team)' });
      return;
    }
    const externalId = v.external_id.trim();
    const r = await action.run('creating', () =>
      env.api.createConnection({ provider: v.provider as ConnectionProvider, name, ...(externalId ? { external_id: externalId } : {}) }),
    );
    if (!r.ok) {
      setMessage({ kind: 'error', text: r.error.text });
      return;
    }
    let stored: string;
    if (!env.secrets) stored = 'Not stored: `svc connections test` will need it on --secret-stdin.';
    else {
      try {
        stored = `Stored ${await env.secrets.save(r.value.id, r.value.secret)} for \`svc connections test\`.`;
      } catch (err) {
        stored = `Could not store it (${err instanceof Error ? err.message : String(err)}): \`svc connections test\` will need it on --secret-stdin.`;
      }
    }
    onCreated(r.value, stored);
  };

  const fields: FieldSpec[] = [
    { id: 'provider', kind: 'choice', label: 'Provider', options: CONNECTION_PROVIDERS, compact: true },
    { id: 'name', kind: 'text', label: 'Name', placeholder: 'e.g. acme-repo' },
    { id: 'external_id', kind: 'text', label: 'External id', placeholder: '(optional) account or installation id', onEnter: () => void create() },
    { id: 'create', kind: 'button', label: 'Create', onPress: () => void create() },
    { id: 'cancel', kind: 'button', label: 'Cancel', onPress: () => env.nav.back() },
  ];
  const form = useForm({
    fields,
    initial: { provider: CONNECTION_PROVIDERS[0], name: '', external_id: '' },
    initialFocus: 'provider',
    onSubmit: () => void create(),
  });

  return (
    <Frame
      title={['Connections', 'New']}
      right={action.busy ? `${action.busy}…` : ''}
      hints="tab next field · ctrl+s create · esc cancel"
      help={HELP}
      message={message}
    >
      <FormView form={form} fields={fields} width={env.columns} />
      <Text> </Text>
      <Text dimColor wrap="wrap">
        The daemon makes a random secret and shows it once, with the webhook URL to enter in the provider's settings.
      </Text>
    </Frame>
  );
}

function CreatedView({ connection, stored }: { connection: ConnectionWithSecretDto; stored: string }) {
  const env = useAppEnv();
  const color = useColor();
  const done = () => {
    env.nav.back();
    env.nav.flash({ kind: 'ok', text: `Created ${connection.provider} connection ${connection.name}` });
  };
  useScreenKeys((_input, key) => {
    if (key.return || key.escape) {
      done();
      return true;
    }
    return false;
  });
  return (
    <Frame title={['Connections', 'New', connection.name]} hints="enter/esc done: the secret is not shown again" help={HELP}>
      <Text color={color('green')}>{`✓ Created ${connection.provider} connection ${connection.name}`}</Text>
      <Text> </Text>
      <Text dimColor>Webhook URL</Text>
      <Text wrap="wrap">{`  ${connection.webhook_url}`}</Text>
      <Text dimColor>Secret (shown once)</Text>
      <Text wrap="wrap" bold>{`  ${connection.secret}`}</Text>
      <Text> </Text>
      <Text wrap="wrap">{`Enter both in ${PROVIDER_TITLES[connection.provider]}'s webhook settings.`}</Text>
      <Text wrap="wrap" dimColor>
        {stored}
      </Text>
    </Frame>
  );
}
