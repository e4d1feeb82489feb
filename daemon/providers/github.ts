// GitHub: `X-Hub-Signature-256: sha256=HEX`, HMAC-SHA256 of the body; the event is the
// `X-GitHub-Event` header plus the body's `action` (CONTRACT §12).
import { PROVIDER_TITLES } from '../../shared/schemas/connections.js';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import type { DeliveryRequest } from './delivery.js';
import { exactUtf8, header, hexHmacMatches, missingHeader, mismatch, stringAt, withAction, type ProviderScheme } from './scheme.js';

const SIGNATURE = 'X-Hub-Signature-256';
const PREFIX = 'sha256=';

async function verify(req: DeliveryRequest): Promise<string | null> {
  const given = header(req, SIGNATURE);
  if (given === null) return missingHeader(SIGNATURE);
  // GitHub's own verifier takes the payload as a string. That string is the body only when the
  // bytes are UTF-8 that decode and encode back unchanged; otherwise two different bodies could
  // decode to one string and share a signature, so those (and an empty body, which the library
  // refuses) are checked over the raw bytes with node:crypto instead. Such a body is not JSON and
  // is refused with 400 anyway once its signature is found right.
  const text = exactUtf8(req.rawBody);
  let ok: boolean;
  if (text !== null && text !== '') {
    const results = await Promise.all(req.secrets.map((secret) => octokitVerify(secret, text, given).catch(() => false)));
    ok = results.includes(true);
  } else {
    ok = given.startsWith(PREFIX) && hexHmacMatches(given.slice(PREFIX.length), 'sha256', req.secrets, [req.rawBody]);
  }
  return ok ? null : mismatch(SIGNATURE, 'the GitHub webhook settings');
}

export const github: ProviderScheme = {
  title: PROVIDER_TITLES.github,
  verify,
  normalise(body, req) {
    const event = header(req, 'X-GitHub-Event');
    if (event === null) return { kind: 'rejected', status: 400, reason: `${missingHeader('X-GitHub-Event')}, which names the event: is this a GitHub webhook delivery?` };
    return {
      kind: 'event',
      eventType: withAction(event, stringAt(body, 'action')),
      id: header(req, 'X-GitHub-Delivery'),
      subject: stringAt(body, 'repository', 'full_name'),
    };
  },
  metadataHeaders: [
    'x-github-event',
    'x-github-delivery',
    'x-github-hook-id',
    'x-github-hook-installation-target-id',
    'x-github-hook-installation-target-type',
    'user-agent',
  ],
  idHeader: 'X-GitHub-Delivery',
  eventHeader: 'X-GitHub-Event',
};
