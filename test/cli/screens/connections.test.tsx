import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedDelivery } from '../../../cli/connections/sign.js';
import { fitsTerminal, type Harness, KEY, startHarness } from './harness.js';

let h: Harness;
let repo: { id: string; secret: string; webhook_url: string };
beforeAll(async () => {
  h = await startHarness();
  const made = await h.api('POST', '/teams/acme/connections', { provider: 'github', name: 'acme-repo' });
  if (made.status !== 201) throw new Error(`connection create failed: ${JSON.stringify(made.body)}`);
  repo = made.body.data;
});
afterAll(async () => {
  await h.close();
});

/** One delivery the daemon takes, signed with the secret, then one it refuses (another secret). */
async function deliverTwo() {
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/repo' } });
  for (const secret of [repo.secret, 'a-secret-this-connection-never-had']) {
    const signed = await signedDelivery('github', secret, body, { now: new Date(), eventType: 'push', deliveryId: randomUUID() });
    const res = await fetch(repo.webhook_url, { method: 'POST', headers: signed.headers, body: signed.body });
    expect(res.status).toBe(secret === repo.secret ? 200 : 401);
  }
}

describe('connections screen', () => {
  it('is an area of the home screen, opened by its number', async () => {
    const ui = h.open();
    await ui.waitFor('6 Connections');
    await ui.press('6');
    const frame = await ui.waitFor('acme-repo');
    expect(frame).toMatch(/NAME\s+PROVIDER\s+LAST DELIVERY\s+ID/);
    expect(frame).toMatch(/acme-repo\s+github/);
    ui.unmount();
  });

  it("shows a connection's deliveries with status and reason, the rejected one marked ✗", async () => {
    await deliverTwo();
    const ui = h.open({ area: 'connections' });
    await ui.waitFor(/acme-repo\s+github/);
    await ui.press(KEY.enter);
    const frame = await ui.waitFor('2 deliveries · 1 rejected');
    expect(frame).toContain('Connections › acme-repo');
    expect(frame).toContain(repo.webhook_url.slice(0, 40));
    expect(frame).toMatch(/RECEIVED\s+STATUS\s+EVENT TYPE\s+REASON/);
    expect(frame).toMatch(/✗ rejected/);
    expect(frame).toMatch(/✓ accepted\s+push/);
    expect(frame).not.toContain(repo.secret);
    // newest first: the rejected one is selected, and its whole reason shows below the list
    const rejected = (await h.api('GET', `/teams/acme/connections/${repo.id}/deliveries`)).body.data[0] as { status: string; reason: string };
    expect(rejected.status).toBe('rejected');
    await ui.waitFor(`✗ rejected`);
    expect(frame.replace(/\s+/g, ' ')).toContain(rejected.reason.slice(0, 30));
    expect(fitsTerminal(frame)).toBe(true);
    await ui.press(KEY.esc);
    await ui.waitFor(/acme-repo\s+github/);
    ui.unmount();
  });

  it('creates a connection: shows the URL and the secret once, keeps the secret, and lists it', async () => {
    const kept: { id: string; secret: string }[] = [];
    const ui = h.open({
      area: 'connections',
      secrets: {
        save: async (id, secret) => {
          kept.push({ id, secret });
          return 'in the test keeper';
        },
      },
    });
    await ui.waitFor(/acme-repo\s+github/);
    await ui.press('n');
    await ui.waitFor('‹ github ›');
    await ui.press(KEY.right);
    await ui.waitFor('‹ gitlab ›');
    await ui.press(KEY.tab);
    await ui.waitFor('› Name');
    await ui.type('acme-group');
    await ui.press(KEY.tab);
    await ui.type('9001');
    await ui.press(KEY.ctrlS);
    const shown = await ui.waitFor('✓ Created gitlab connection acme-group');
    expect(fitsTerminal(shown)).toBe(true);
    expect(shown).toContain('Secret (shown once)');
    expect(shown).toContain('Stored in the test keeper for `svc connections test`.');

    const list = (await h.api('GET', '/teams/acme/connections')).body.data as { id: string; name: string; provider: string; external_id: string | null; webhook_url: string }[];
    const made = list.find((c) => c.name === 'acme-group')!;
    expect(made).toMatchObject({ provider: 'gitlab', external_id: '9001' });
    expect(kept).toEqual([{ id: made.id, secret: expect.any(String) }]);
    expect(shown.replace(/\s+/g, '')).toContain(kept[0].secret);
    expect(shown.replace(/\s+/g, '')).toContain(made.webhook_url);

    await ui.press(KEY.enter);
    const back = await ui.waitFor(/acme-group\s+gitlab/);
    expect(back).toContain('Created gitlab connection acme-group');
    expect(back).not.toContain(kept[0].secret);
    ui.unmount();
  });

  it('says why a create was refused, and stays on the form', async () => {
    const ui = h.open({ area: 'connections' });
    await ui.waitFor(/acme-repo\s+github/);
    await ui.press('n');
    await ui.waitFor('‹ github ›');
    await ui.press(KEY.ctrlS);
    await ui.waitFor('✗ Name is needed');
    await ui.press(KEY.tab);
    await ui.type('acme-repo');
    await ui.press(KEY.ctrlS);
    const refused = await ui.waitFor('CONFLICT');
    expect(refused).toContain('Connections › New');
    ui.unmount();
  });
});
