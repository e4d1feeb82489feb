// Connections (CONTRACT §12) and event replay over HTTP, on a real daemon: create (secret shown
// once), uniqueness, reads that never show a secret, rotation, delete, validation, and replay.
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, makeDataDir, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { dropTestStores } from '../helpers/test-store.js';

let d: TestDaemon;
let api: Requester;
let other: Requester;
let team: { id: string };
let keys: { acme: string; beta: string };
const cx = '/teams/acme/connections';

beforeAll(async () => {
  d = await startTestDaemon();
  const acme = await createTeam(d, 'acme');
  const beta = await createTeam(d, 'beta');
  ({ api, team } = acme);
  other = beta.api;
  keys = { acme: acme.key, beta: beta.key };
});
afterAll(() => d.destroy());

const CONNECTION_FIELDS = ['created_at', 'external_id', 'id', 'last_delivery_at', 'name', 'provider', 'secret_prefix', 'team_id', 'webhook_url'];

describe('connections (CONTRACT §12)', () => {
  let github: { id: string; secret: string; secret_prefix: string };

  it('creates a connection (201): its secret shown once, random, with its prefix and webhook_url', async () => {
    const res = await api('POST', cx, { provider: 'github', name: 'GitHub acme', external_id: '4242' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const c = res.body.data;
    github = c;
    expect(Object.keys(c).sort()).toEqual([...CONNECTION_FIELDS, 'secret'].sort());
    expect(c).toMatchObject({ team_id: team.id, provider: 'github', name: 'GitHub acme', external_id: '4242', last_delivery_at: null });
    // 32 random bytes, base64url
    expect(c.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(c.secret.startsWith(c.secret_prefix)).toBe(true);
    expect(c.secret_prefix.length).toBe(10);
    expect(c.webhook_url).toBe(`${d.url}/hooks/${c.id}`);
  });

  it('makes a Standard Webhooks secret for provider standard (whsec_ and base64 of 32 bytes), and takes a provider-made secret', async () => {
    const standard = (await api('POST', cx, { provider: 'standard', name: 'std' })).body.data;
    expect(standard.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(standard.secret.slice(6), 'base64')).toHaveLength(32);
    const vercel = await api('POST', cx, { provider: 'vercel', name: 'Vercel', secret: 'vercel-made-secret-0123456789' });
    expect(vercel.status).toBe(201);
    expect(vercel.body.data.secret).toBe('vercel-made-secret-0123456789');
    // a quarter of a short secret at most
    expect(vercel.body.data.secret_prefix).toBe('vercel-');
    const badStandard = await api('POST', cx, { provider: 'standard', name: 'std 2', secret: 'not-a-whsec-secret-at-all' });
    expect(badStandard.status).toBe(400);
    expect(badStandard.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('starts webhook_url with the protocol and Host header the request came with', async () => {
    const res = await postWithHost(`${d.url}${cx}`, 'svc.example.test:8443', keys.acme, { provider: 'gitlab', name: 'GitLab' });
    expect(res.status).toBe(201);
    expect(res.body.data.webhook_url).toBe(`http://svc.example.test:8443/api/v1/hooks/${res.body.data.id}`);
  });

  it('refuses a taken name, compared as automation names are (409 CONFLICT), in the same team only', async () => {
    const res = await api('POST', cx, { provider: 'linear', name: '  github ACME ' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect((await other('POST', '/teams/beta/connections', { provider: 'linear', name: 'GitHub acme' })).status).toBe(201);
  });

  it('refuses a (provider, external_id) another connection has, in any team (409), and takes it under another provider', async () => {
    const res = await other('POST', '/teams/beta/connections', { provider: 'github', name: 'stolen', external_id: '4242' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.message).toContain('external_id');
    expect((await other('POST', '/teams/beta/connections', { provider: 'gitlab', name: 'gl', external_id: '4242' })).status).toBe(201);
    // connections without an external_id never collide
    expect((await other('POST', '/teams/beta/connections', { provider: 'github', name: 'a' })).status).toBe(201);
    expect((await other('POST', '/teams/beta/connections', { provider: 'github', name: 'b' })).status).toBe(201);
  });

  it('lists and gets connections, never with a secret or a sealed field', async () => {
    const list = await api('GET', cx);
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['GitLab', 'Vercel', 'std', 'GitHub acme']);
    for (const c of list.body.data) expect(Object.keys(c).sort()).toEqual(CONNECTION_FIELDS);
    const one = await api('GET', `${cx}/${github.id}`);
    expect(one.status).toBe(200);
    expect(Object.keys(one.body.data).sort()).toEqual(CONNECTION_FIELDS);
    const text = JSON.stringify([list.body, one.body]);
    expect(text).not.toContain(github.secret);
    expect(text).not.toMatch(/sealed|previous/);
  });

  it('pages the list with limit and cursor', async () => {
    const first = await api('GET', `${cx}?limit=3`);
    expect(first.body.data).toHaveLength(3);
    const rest = await api('GET', `${cx}?limit=3&cursor=${first.body.next_cursor}`);
    expect(rest.body.data.map((c: { name: string }) => c.name)).toEqual(['GitHub acme']);
    expect(rest.body.next_cursor).toBeUndefined();
  });

  it("answers 404 for another team's connection, an unknown id and a malformed one", async () => {
    for (const path of [`/teams/beta/connections/${github.id}`, `/teams/beta/connections/${github.id}/deliveries`]) {
      const res = await other('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await other('POST', `/teams/beta/connections/${github.id}/secret`, {})).status).toBe(404);
    expect((await other('DELETE', `/teams/beta/connections/${github.id}`)).status).toBe(404);
    expect((await api('GET', `${cx}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await api('GET', `${cx}/not-a-uuid`)).status).toBe(404);
  });

  it('rotates the secret: a new one shown once, its prefix changes; keep (the default) and revoke both answer the connection', async () => {
    const kept = await api('POST', `${cx}/${github.id}/secret`);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(Object.keys(kept.body.data).sort()).toEqual([...CONNECTION_FIELDS, 'secret'].sort());
    expect(kept.body.data.secret).not.toBe(github.secret);
    expect(kept.body.data.secret_prefix).not.toBe(github.secret_prefix);
    expect(kept.body.data.secret.startsWith(kept.body.data.secret_prefix)).toBe(true);
    const revoked = await api('POST', `${cx}/${github.id}/secret`, { previous: 'revoke' });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.secret).not.toBe(kept.body.data.secret);
    const got = await api('GET', `${cx}/${github.id}`);
    expect(got.body.data.secret_prefix).toBe(revoked.body.data.secret_prefix);
    expect(JSON.stringify(got.body)).not.toContain(revoked.body.data.secret);
    const bad = await api('POST', `${cx}/${github.id}/secret`, { previous: 'forget' });
    expect(bad.status).toBe(400);
  });

  it('lists no deliveries for a new connection', async () => {
    const res = await api('GET', `${cx}/${github.id}/deliveries?limit=5`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('refuses bodies that do not fit (400 VALIDATION_ERROR in the envelope)', async () => {
    const cases = [
      { provider: 'bitbucket', name: 'x' },
      { provider: 'github', name: '' },
      { provider: 'github', name: '   ' },
      { provider: 'github', name: 'two\nlines' },
      { provider: 'github', name: 'x', colour: 'blue' },
      { provider: 'github' },
      { provider: 'github', name: 'x', secret: 'short' },
      { provider: 'github', name: 'x', external_id: '' },
    ];
    for (const body of cases) {
      const res = await api('POST', cx, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code, JSON.stringify(body)).toBe('VALIDATION_ERROR');
    }
    expect((await api('GET', `${cx}?limit=0`)).status).toBe(400);
    expect((await api('GET', `${cx}/${github.id}/deliveries?cursor=zzz`)).status).toBe(400);
  });

  it('deletes a connection: get and deliveries answer 404 from then on, and its name is free again', async () => {
    const c = (await api('POST', cx, { provider: 'sentry', name: 'Sentry' })).body.data;
    expect((await api('DELETE', `${cx}/${c.id}`)).body).toEqual({ data: { success: true } });
    expect((await api('GET', `${cx}/${c.id}`)).status).toBe(404);
    expect((await api('GET', `${cx}/${c.id}/deliveries`)).status).toBe(404);
    expect((await api('DELETE', `${cx}/${c.id}`)).status).toBe(404);
    expect((await api('POST', cx, { provider: 'sentry', name: 'sentry' })).status).toBe(201);
  });

  it('needs the team key', async () => {
    expect((await d.as(null)('GET', cx)).status).toBe(401);
  });

});

describe('event replay (CONTRACT §12)', () => {
  let automationId: string;
  const sessionsOf = async () => (await api('GET', `/teams/acme/sessions?automation_id=${automationId}&limit=200`)).body.data as { session_id: string }[];

  beforeAll(async () => {
    const a = await api('POST', '/teams/acme/automations', { name: 'on deploy', prompt: 'check', event_type: 'deploy' });
    expect(a.status).toBe(201);
    automationId = a.body.data.id;
  });

  it('dispatches a stored event again as {id}:replay:1, then :2: a new session each time, the event as stored', async () => {
    const sent = await api('POST', '/teams/acme/webhooks/events', { id: 'ev-1', event_type: 'deploy', source: 'ci', subject: 'web', metadata: { m: 1 }, data: { env: 'prod' } });
    expect(sent.body.data.accepted).toBe(true);
    expect(await sessionsOf()).toHaveLength(1);

    const first = await api('POST', '/teams/acme/events/ev-1/replay');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ accepted: true, dispatched: [{ automationId, idempotencyKey: `event:${automationId}:ev-1:replay:1` }] });
    expect(await sessionsOf()).toHaveLength(2);
    const second = await api('POST', '/teams/acme/events/ev-1/replay');
    expect(second.body.data.dispatched[0].idempotencyKey).toBe(`event:${automationId}:ev-1:replay:2`);
    expect(await sessionsOf()).toHaveLength(3);

    const events = (await api('GET', '/teams/acme/events?limit=200')).body.data as { id: string }[];
    const replayed = events.find((e) => e.id === 'ev-1:replay:1');
    expect(replayed).toMatchObject({ provider: 'generic', event_type: 'deploy', source: 'ci', subject: 'web', metadata: { m: 1 }, data: { env: 'prod' }, accepted: true });
  });

  it('matches the automations as they are now', async () => {
    await api('POST', '/teams/acme/webhooks/events', { id: 'ev-2', event_type: 'release' });
    const none = await api('POST', '/teams/acme/events/ev-2/replay');
    expect(none.body.data).toMatchObject({ accepted: false, dispatched: [] });
    await api('POST', '/teams/acme/automations', { name: 'on release', prompt: 'r', event_type: 'release' });
    const now = await api('POST', '/teams/acme/events/ev-2/replay');
    expect(now.body.data.accepted).toBe(true);
    expect(now.body.data.dispatched[0].idempotencyKey).toMatch(/:ev-2:replay:2$/);
  });

  it('a dry run starts nothing and takes no number: it shows the id the next replay gets', async () => {
    const before = (await sessionsOf()).length;
    for (const q of ['true', '1']) {
      const dry = await api('POST', `/teams/acme/events/ev-1/replay?dry_run=${q}`);
      expect(dry.status).toBe(200);
      expect(dry.body.data).toMatchObject({ accepted: true, dispatched: [{ idempotencyKey: `event:${automationId}:ev-1:replay:3` }] });
      expect(dry.body.data.matches).toBeDefined();
    }
    expect(await sessionsOf()).toHaveLength(before);
    const real = await api('POST', '/teams/acme/events/ev-1/replay');
    expect(real.body.data.dispatched[0].idempotencyKey).toBe(`event:${automationId}:ev-1:replay:3`);
  });

  it('replays a replay under a count of its own', async () => {
    const res = await api('POST', `/teams/acme/events/${encodeURIComponent('ev-1:replay:1')}/replay`);
    expect(res.status).toBe(200);
    expect(res.body.data.dispatched[0].idempotencyKey).toBe(`event:${automationId}:ev-1:replay:1:replay:1`);
  });

  it('gives concurrent replays different numbers', async () => {
    await api('POST', '/teams/acme/webhooks/events', { id: 'ev-3', event_type: 'deploy' });
    const results = await Promise.all(Array.from({ length: 4 }, () => api('POST', '/teams/acme/events/ev-3/replay')));
    const keys = results.map((r) => r.body.data.dispatched[0].idempotencyKey as string).sort();
    expect(keys).toEqual([1, 2, 3, 4].map((n) => `event:${automationId}:ev-3:replay:${n}`));
  });

  it('refuses a replay whose id would be over the 200 characters of an event id, and takes no number for it', async () => {
    const fits = 'x'.repeat(200 - ':replay:1'.length);
    await api('POST', '/teams/acme/webhooks/events', { id: fits, event_type: 'deploy' });
    const ok = await api('POST', `/teams/acme/events/${fits}/replay`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.dispatched[0].idempotencyKey).toBe(`event:${automationId}:${fits}:replay:1`);
    // the replay is an event like any other: within the limit, so it can be looked up and replayed
    const listed = (await api('GET', '/teams/acme/events?limit=200')).body.data as { id: string }[];
    expect(listed.some((e) => e.id === `${fits}:replay:1`)).toBe(true);

    const long = 'y'.repeat(195);
    await api('POST', '/teams/acme/webhooks/events', { id: long, event_type: 'deploy' });
    const before = (await sessionsOf()).length;
    for (const path of [`/teams/acme/events/${long}/replay?dry_run=true`, `/teams/acme/events/${long}/replay`, `/teams/acme/events/${long}/replay`]) {
      const refused = await api('POST', path);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('would have 204 characters, and an event id may have at most 200') });
    }
    expect(await sessionsOf()).toHaveLength(before);
    // an id over the limit is refused as a path parameter, as the send body refuses it
    expect((await api('POST', `/teams/acme/events/${'z'.repeat(201)}/replay`)).status).toBe(400);
    expect((await api('POST', '/teams/acme/webhooks/events', { id: 'z'.repeat(201), event_type: 'deploy' })).status).toBe(400);
  });

  it("answers 404 for an event the team never received, or another team's", async () => {
    const unknown = await api('POST', '/teams/acme/events/never-sent/replay');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect((await other('POST', '/teams/beta/events/ev-1/replay')).status).toBe(404);
    expect((await api('POST', '/teams/acme/events/ev-1/replay', { extra: 1 })).status).toBe(400);
  });
});

describe('after a restart', () => {
  it('keeps connections, their secrets sealed as they were, and the replay counts', async () => {
    const before = (await api('GET', cx)).body.data;
    const secretsBefore = (await api('GET', `${cx}?limit=200`)).body.data.map((c: { secret_prefix: string }) => c.secret_prefix);
    await d.close();
    d = await startTestDaemon({ dataDir: d.dataDir });
    api = d.as(keys.acme);
    const after = (await api('GET', cx)).body.data;
    expect(after).toEqual(before.map((c: { id: string }) => ({ ...c, webhook_url: `${d.url}/hooks/${c.id}` })));
    expect(after.map((c: { secret_prefix: string }) => c.secret_prefix)).toEqual(secretsBefore);
    const replay = await api('POST', '/teams/acme/events/ev-1/replay?dry_run=1');
    expect(replay.body.data.dispatched[0].idempotencyKey).toMatch(/:ev-1:replay:4$/);
  });
});

describe('behind a proxy (--public-url, SVC_PUBLIC_URL)', () => {
  it('starts webhook_url with the public URL, /api/v1 added once, whatever the request says', async () => {
    for (const [publicUrl, base] of [
      ['https://svc.example.com/base/', 'https://svc.example.com/base/api/v1'],
      ['https://svc.example.com/api/v1', 'https://svc.example.com/api/v1'],
    ]) {
      const proxied = await startTestDaemon({ publicUrl });
      try {
        const { api: p } = await createTeam(proxied, 'acme');
        const c = (await p('POST', cx, { provider: 'github', name: 'gh' })).body.data;
        expect(c.webhook_url).toBe(`${base}/hooks/${c.id}`);
        expect((await p('GET', `${cx}/${c.id}`)).body.data.webhook_url).toBe(`${base}/hooks/${c.id}`);
      } finally {
        await proxied.destroy();
      }
    }
  });

  it('refuses to start with a public URL that is not http(s)', async () => {
    const dataDir = await makeDataDir();
    try {
      await expect(startTestDaemon({ dataDir, publicUrl: 'ftp://svc.example.com' })).rejects.toThrow(/public URL/);
    } finally {
      await dropTestStores(dataDir);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/** A POST with a Host header of its own (fetch sends the URL's). */
function postWithHost(url: string, host: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { host, authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
