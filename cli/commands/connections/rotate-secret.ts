import { connectionsClient } from '../../../shared/client.js';
import type { RotateSecretInput } from '../../../shared/schemas/connections.js';
import { defineCommand } from '../../command.js';
import { showNewSecret } from '../../connections/render.js';
import { secretFromStdin } from '../../connections/secrets.js';

interface RotateOptions extends Record<string, unknown> {
  revokePrevious?: boolean;
  secretStdin?: boolean;
}

export const command = defineCommand<{ id: string }, RotateOptions>({
  name: 'connections rotate-secret',
  description: 'Give a connection a new secret, printed once; the previous one keeps verifying for 24 hours unless revoked',
  args: [{ name: 'id', description: 'connection id', required: true }],
  options: [
    { flags: '--revoke-previous', description: 'the previous secret stops verifying at once (default: it verifies for 24 hours more)' },
    { flags: '--secret-stdin', description: 'use the new secret the provider made, read from stdin, instead of a random one' },
  ],
  examples: [
    { description: 'Rotate, then update the provider within 24 hours', command: 'svc connections rotate-secret 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10' },
    { description: 'A leaked secret: stop it verifying now', command: 'svc connections rotate-secret 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10 --revoke-previous' },
  ],
  async run(args, opts, ctx) {
    const body: RotateSecretInput = { previous: opts.revokePrevious ? 'revoke' : 'keep' };
    if (opts.secretStdin) body.secret = await secretFromStdin(ctx);
    const api = connectionsClient(await ctx.client(), await ctx.team());
    const rotated = await api.rotateSecret(args.id, body);
    const previous = opts.revokePrevious ? 'the previous one no longer verifies' : 'the previous one still verifies for 24 hours';
    await showNewSecret(ctx, rotated, `New secret for connection "${rotated.name}" (${rotated.id}); ${previous}.`);
  },
});
