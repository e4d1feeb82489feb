import type { ConnectionProvider, CreateConnectionInput } from '../../../shared/schemas/connections.js';
import { CONNECTION_PROVIDERS } from '../../../shared/api-values.js';
import { connectionsClient } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { InvalidInputError } from '../../errors.js';
import { showNewSecret } from '../../connections/render.js';
import { secretFromStdin } from '../../connections/secrets.js';

interface CreateOptions extends Record<string, unknown> {
  provider: ConnectionProvider;
  name: string;
  externalId?: string;
  secretStdin?: boolean;
}

export const command = defineCommand<Record<string, never>, CreateOptions>({
  name: 'connections create',
  description: "Connect a provider account: print its webhook URL and secret (once), and keep the secret for `connections test`",
  options: [
    { flags: '--provider <provider>', description: 'the provider whose deliveries it takes', choices: CONNECTION_PROVIDERS, required: true },
    { flags: '--name <name>', description: 'name, unique in the team (1-200 characters)', required: true },
    { flags: '--external-id <id>', description: "the provider's account or installation id (routes service-managed GitHub App deliveries)" },
    { flags: '--secret-stdin', description: 'use the secret the provider made (Vercel, Linear, Sentry, Slack) read from stdin, instead of a random one' },
  ],
  examples: [
    { description: 'A GitHub repository webhook: put the URL and secret printed in its settings', command: 'svc connections create --provider github --name acme-repo' },
    { description: 'Vercel makes the secret: hand it over on stdin', command: 'printenv VERCEL_SECRET | svc connections create --provider vercel --name acme-vercel --secret-stdin' },
    { description: 'For a script: the whole connection, secret included, as JSON', command: 'svc connections create --provider linear --name product --json' },
  ],
  async run(_args, opts, ctx) {
    if (opts.name.trim() === '') throw new InvalidInputError('--name must not be empty');
    if (opts.externalId === '') throw new InvalidInputError('--external-id must not be empty (an unset variable?)');
    const body: CreateConnectionInput = { provider: opts.provider, name: opts.name };
    if (opts.externalId !== undefined) body.external_id = opts.externalId;
    if (opts.secretStdin) body.secret = await secretFromStdin(ctx);
    const api = connectionsClient(await ctx.client(), await ctx.team());
    const created = await api.create(body);
    await showNewSecret(ctx, created, `Created ${created.provider} connection "${created.name}" (${created.id}).`);
  },
});
