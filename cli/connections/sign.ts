// STUB, to be replaced by branch i28-providers (the real one signs as each provider does).
import { createHmac } from 'node:crypto';
import type { ConnectionProvider } from '../../shared/schemas/connections.js';

export function signedDelivery(
  provider: ConnectionProvider,
  secret: string,
  body: string,
  opts: { now: Date; eventType: string; deliveryId: string },
): { headers: Record<string, string>; body: string } {
  const hex = (alg: string, text: string) => createHmac(alg, secret).update(text).digest('hex');
  const [event] = opts.eventType.split('.');
  switch (provider) {
    case 'github':
      return { body, headers: { 'x-hub-signature-256': `sha256=${hex('sha256', body)}`, 'x-github-event': event, 'x-github-delivery': opts.deliveryId } };
    case 'gitlab':
      return { body, headers: { 'x-gitlab-token': secret, 'x-gitlab-event-uuid': opts.deliveryId } };
    default:
      throw new Error(`the stub cannot sign ${provider} deliveries`);
  }
}
