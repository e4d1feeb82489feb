// `svc connections test ID --event TYPE`: a provider's delivery, made here, sent to the daemon's
// hook route as the provider would send it (signed with the connection's secret, no key), so a
// team can see what an automation does with a provider event without the provider.
import { randomUUID } from 'node:crypto';
import { connectionsClient, type HookAnswer } from '../../../shared/client.js';
import type { EventResultDto } from '../../../shared/schemas/events.js';
import { defineCommand, repeatable } from '../../command.js';
import { applyOverrides } from '../../connections/overrides.js';
import { readConnectionSecret, secretFromStdin } from '../../connections/secrets.js';
import { DeliveryRefusedError, UsageError } from '../../errors.js';
import { printEventResult } from '../../lib/event-result.js';

interface TestOptions extends Record<string, unknown> {
  event: string;
  secretStdin?: boolean;
  deliveryId?: string;
  set?: string[];
}

/** What to check, by the daemon's status for a delivery it refused. */
const REFUSED_HINT: Record<number, string> = {
  401: "the signature did not verify: the secret is not the connection's current one (or its previous one within 24 hours of a rotation); `svc connections deliveries ID` shows the reason",
  404: 'no such connection on that daemon (deleted?)',
  413: 'the body is over 5 MiB',
  400: 'the daemon could not read the body',
};

/**
 * Where to post: the webhook URL the daemon gave, when it is on the daemon this profile talks to;
 * otherwise this daemon's own hook route. A daemon behind a public URL (a tunnel, a proxy) names
 * that URL, which may not be reachable from here or may reach another daemon: the test is of this
 * daemon, so it goes to the URL the profile uses.
 */
export function deliveryTarget(webhookUrl: string, baseUrl: string, connectionId: string): { target: string; viaProfile: boolean } {
  try {
    if (new URL(webhookUrl).origin === new URL(baseUrl).origin) return { target: webhookUrl, viaProfile: false };
  } catch {
    // not a URL: use the profile's
  }
  return { target: connectionId, viaProfile: true };
}

export const command = defineCommand<{ id: string }, TestOptions>({
  name: 'connections test',
  description: "Send the daemon a sample delivery of a provider event, signed with the connection's secret, and print what it dispatched",
  args: [{ name: 'id', description: 'connection id', required: true }],
  options: [
    { flags: '--event <type>', description: "the provider's event type, as svc names it: pull_request.opened, push, merge_request.open, issue.create, ...", required: true },
    { flags: '--secret-stdin', description: 'sign with the secret read from stdin (default: the one `connections create` or `rotate-secret` stored for this profile)' },
    { flags: '--set <path=value>', description: 'set a field of the sample payload before it is signed (repeatable; JSON values are parsed): --set pull_request.base.ref=main', parse: repeatable },
    { flags: '--delivery-id <id>', description: "the provider's delivery id, which becomes the event id (default: a new UUID; sending one again is a duplicate)" },
  ],
  examples: [
    { description: 'Does my pull request automation start?', command: 'svc connections test 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10 --event pull_request.opened' },
    { description: 'A pull request into main, for an automation filtered on the base branch', command: 'svc connections test 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10 --event pull_request.opened --set pull_request.base.ref=main' },
    { description: 'With a secret stored elsewhere', command: 'printenv HOOK_SECRET | svc connections test 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10 --event push --secret-stdin' },
  ],
  async run(args, opts, ctx) {
    if (opts.event.trim() === '') throw new UsageError('--event must not be empty');
    if (opts.deliveryId === '') throw new UsageError('--delivery-id must not be empty (an unset variable?)');
    const client = await ctx.client();
    const api = connectionsClient(client, await ctx.team());
    const connection = await api.get(args.id);

    let secret: string;
    if (opts.secretStdin) secret = await secretFromStdin(ctx);
    else {
      const stored = await readConnectionSecret(ctx, connection.id);
      if (!stored.found) {
        const why = stored.keychainError ? ` (the keychain did not answer: ${stored.keychainError})` : '';
        throw new UsageError(
          `no secret of connection ${connection.id} is stored for profile ${ctx.profile()}${why}: it is stored by \`svc connections create\` and \`rotate-secret\` on this profile; pass it with --secret-stdin`,
        );
      }
      secret = stored.found.key;
    }

    // Loaded here: the samples are large, and no other command needs them.
    const [{ sampleDelivery }, { signedDelivery }] = await Promise.all([import('../../connections/samples.js'), import('../../connections/sign.js')]);
    let payload: Record<string, unknown>;
    try {
      payload = await sampleDelivery(connection.provider, opts.event);
    } catch (err) {
      // (an unknown event type: the message names the ones there are)
      throw err instanceof UsageError ? err : new UsageError(err instanceof Error ? err.message : String(err));
    }
    if (opts.set?.length) payload = applyOverrides(payload, opts.set);
    const deliveryId = opts.deliveryId ?? randomUUID();
    const signed = await signedDelivery(connection.provider, secret, JSON.stringify(payload), { now: new Date(), eventType: opts.event, deliveryId });

    const { target, viaProfile } = deliveryTarget(connection.webhook_url, client.baseUrl, connection.id);
    const answer: HookAnswer = await client.deliver(target, signed.headers, signed.body);
    if (viaProfile) ctx.out.status(`Sent to ${answer.url} (the webhook URL ${connection.webhook_url} is not on the daemon this profile uses).`);

    if (answer.status < 200 || answer.status >= 300) {
      const what = answer.error ? `${answer.error.code}: ${answer.error.message}` : `HTTP ${answer.status}`;
      // A daemon without the hook route (an svc older than connections) says "no route": not a deleted connection.
      const hint = answer.status === 404 && answer.error?.message.startsWith('no route') ? 'that daemon takes no provider deliveries (an older svc?)' : REFUSED_HINT[answer.status];
      throw new DeliveryRefusedError(`the daemon refused the ${connection.provider} delivery (${what}, HTTP ${answer.status})${hint ? `: ${hint}` : ''}`, answer.status);
    }
    // Slack's url_verification is answered as Slack wants it, `{"challenge": ...}`, maybe bare.
    const data = answer.data ?? answer.body;
    if (typeof data === 'object' && data !== null && 'challenge' in data) {
      ctx.out.result(data, () => ctx.out.line('Answered the url_verification challenge: nothing dispatched.'));
      return;
    }
    if (typeof data !== 'object' || data === null || !('dispatched' in data)) {
      ctx.out.result(data ?? null, () => ctx.out.line(`The daemon answered HTTP ${answer.status}: ${JSON.stringify(data ?? null)}`));
      return;
    }
    printEventResult(ctx, data as EventResultDto, { success: `Delivered ${connection.provider} ${opts.event} ${deliveryId} to connection ${connection.id}: ${(data as EventResultDto).reason}.` });
  },
});
