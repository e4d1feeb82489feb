// Real GitHub payloads (@octokit/webhooks-examples), signed with GitHub's own library, read by
// the daemon as the events an automation listens for.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { receiveDelivery } from '../../daemon/providers/receive.js';

interface Examples {
  name: string;
  examples: Record<string, unknown>[];
}
const examples = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@octokit/webhooks-examples'), 'utf8')) as Examples[];

function example(name: string, action?: string): Record<string, unknown> {
  const found = examples.find((e) => e.name === name)?.examples.find((x) => action === undefined || x.action === action);
  if (!found) throw new Error(`no example ${name}.${action}`);
  return found;
}

describe('real GitHub deliveries', () => {
  it.each([
    { name: 'push', action: undefined, eventType: 'push' },
    { name: 'pull_request', action: 'opened', eventType: 'pull_request.opened' },
    { name: 'issues', action: 'opened', eventType: 'issues.opened' },
    { name: 'ping', action: undefined, eventType: 'ping' },
  ])('$eventType: event type, delivery id and repository', async ({ name, action, eventType }) => {
    const payload = example(name, action);
    const raw = JSON.stringify(payload, null, 2);
    const secret = 'It\'s a Secret to Everybody';
    const headers = {
      'x-github-event': name,
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-hub-signature-256': await sign(secret, raw),
      'user-agent': 'GitHub-Hookshot/044aadd',
    };
    const outcome = await receiveDelivery('github', { rawBody: Buffer.from(raw), headers, secrets: [secret], now: new Date() });
    const repository = payload.repository as { full_name: string };
    expect(outcome).toEqual({
      kind: 'event',
      event: {
        event_type: eventType,
        id: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        subject: repository.full_name,
        metadata: { 'x-github-event': name, 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958', 'user-agent': 'GitHub-Hookshot/044aadd' },
        data: payload,
      },
    });
  });

  it("GitHub's documented test vector verifies", async () => {
    // From GitHub's "Validating webhook deliveries": secret "It's a Secret to Everybody", body "Hello, World!".
    const outcome = await receiveDelivery('github', {
      rawBody: Buffer.from('Hello, World!'),
      headers: { 'x-github-event': 'push', 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' },
      secrets: ["It's a Secret to Everybody"],
      now: new Date(),
    });
    // the signature is right, so it is the body that is refused: 400, not 401
    expect(outcome).toMatchObject({ kind: 'rejected', status: 400 });
  });
});
