// How a connection and its deliveries print, for every `svc connections` command.
import type { ConnectionDto, ConnectionWithSecretDto, DeliveryDto } from '../../shared/schemas/connections.js';
import { PROVIDER_TITLES } from '../../shared/api-values.js';
import { type Context } from '../context.js';
import { formatTime } from '../lib/format.js';
import { type Column } from '../output.js';
import { describePlace, saveConnectionSecret } from './secrets.js';

export function connectionFields(ctx: Context, c: ConnectionDto | ConnectionWithSecretDto): [string, unknown][] {
  const tty = ctx.io.stdout.isTTY;
  const rows: [string, unknown][] = [
    ['ID', c.id],
    ['Provider', c.provider],
    ['Name', c.name],
    ['External ID', c.external_id],
    ['Webhook URL', c.webhook_url],
  ];
  if ('secret' in c) rows.push(['Secret', c.secret]);
  else rows.push(['Secret prefix', c.secret_prefix]);
  rows.push(['Created', formatTime(c.created_at, tty)], ['Last delivery', formatTime(c.last_delivery_at, tty) ?? 'none yet']);
  return rows;
}

export function connectionColumns(tty: boolean): Column<ConnectionDto>[] {
  return [
    { header: 'ID', value: (c) => c.id, keep: true },
    { header: 'Provider', value: (c) => c.provider },
    { header: 'Name', value: (c) => c.name },
    { header: 'External ID', value: (c) => c.external_id },
    { header: 'Last delivery', value: (c) => formatTime(c.last_delivery_at, tty) ?? 'never' },
  ];
}

/** Rejected deliveries stand out: red on a terminal, and their reason says what to fix. */
export function deliveryColumns(tty: boolean): Column<DeliveryDto>[] {
  return [
    { header: 'Received', value: (d) => formatTime(d.received_at, tty) },
    {
      header: 'Status',
      value: (d) => d.status,
      style: (s, c, d) => (d.status === 'rejected' ? c.bold.red(s) : d.status === 'duplicate' ? c.dim(s) : c.green(s)),
    },
    { header: 'Event type', value: (d) => d.event_type },
    { header: 'Delivery ID', value: (d) => d.delivery_id, keep: true },
    { header: 'Reason', value: (d) => d.reason, style: (s, c, d) => (d.status === 'rejected' ? c.red(s) : s) },
  ];
}

/**
 * A new secret (create, rotate-secret): printed once (the daemon never shows it again) and kept
 * for `svc connections test`. A secret that could not be stored is still printed: the connection
 * exists, and the person can still copy it.
 */
export async function showNewSecret(ctx: Context, c: ConnectionWithSecretDto, done: string): Promise<void> {
  ctx.out.result(c, () => ctx.out.fields(connectionFields(ctx, c)));
  ctx.out.success(done);
  try {
    const place = await saveConnectionSecret(ctx, c.id, c.secret);
    const why = place.keychainError ? ` (no keychain answered: ${place.keychainError})` : '';
    ctx.out.status(`Stored the secret ${describePlace(place)} for \`svc connections test\` (profile ${ctx.profile()})${why}.`);
  } catch (err) {
    ctx.out.warn(`the secret could not be stored (${err instanceof Error ? err.message : String(err)}): \`svc connections test\` will need it on --secret-stdin.`);
  }
  if (!ctx.out.json) ctx.out.status(`Enter the webhook URL and the secret in ${PROVIDER_TITLES[c.provider]}'s webhook settings: the secret is not shown again.`);
}
