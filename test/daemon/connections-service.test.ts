// ConnectionService as the delivery route calls it (CONTRACT §12), in-process over the test
// project's store with an injected clock: which secrets verify after a rotation, the connection of
// an installation, the delivery log (paged newest first, duplicates, last_delivery_at), and what a
// restart reads back.
import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PREVIOUS_SECRET_GRACE_MS } from '../../shared/schemas/connections.js';
import { ConnectionService } from '../../daemon/connections/service.js';
import { generateMasterKey } from '../../daemon/secrets/secret-file.js';
import { Sealer } from '../../daemon/secrets/sealer.js';
import type { Store } from '../../daemon/store/store.js';
import { TeamService } from '../../daemon/teams/service.js';
import { openStore } from '../../daemon/store/index.js';
import { openPostgresStore } from '../../daemon/store/postgres/postgres-store.js';
import { makeDataDir } from '../helpers/daemon.js';
import { dropTestStores, openTestStore, testStoreFor } from '../helpers/test-store.js';

const BASE = 'http://svc.test/api/v1';
const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);
const HOUR = 60 * 60 * 1000;

let dataDir: string;
let store: Store;
let now: number;
let masterKey: string;
let connections: ConnectionService;
let teamId: string;

const clock = () => new Date(now);
const service = () => new ConnectionService(store, clock, new Sealer(masterKey));

beforeEach(async () => {
  dataDir = await makeDataDir();
  store = await openTestStore(dataDir);
  now = T0;
  masterKey = generateMasterKey();
  connections = service();
  teamId = (await new TeamService(store, clock).createTeam({ slug: 'acme' })).id;
});

afterEach(async () => {
  await store.close();
  await dropTestStores(dataDir);
  await rm(dataDir, { recursive: true, force: true });
});

describe('ConnectionService.forDelivery: the secrets that verify a delivery', () => {
  it('gives the connection, its team and its secret; undefined for an unknown, malformed or deleted id', async () => {
    const c = await connections.create(teamId, { provider: 'github', name: 'gh' }, BASE);
    const target = await connections.forDelivery(c.id);
    expect(target?.connection).toMatchObject({ id: c.id, provider: 'github', team_id: teamId });
    expect(target?.team).toMatchObject({ id: teamId, slug: 'acme' });
    expect(target?.secrets).toEqual([c.secret]);
    expect(target?.connection.sealed_secret).not.toContain(c.secret);
    expect(await connections.forDelivery('00000000-0000-4000-8000-000000000000')).toBeUndefined();
    expect(await connections.forDelivery('not-a-uuid')).toBeUndefined();
    await connections.delete(teamId, c.id);
    expect(await connections.forDelivery(c.id)).toBeUndefined();
  });

  it('keep: the previous secret verifies after the current one for 24 hours, and not after', async () => {
    const c = await connections.create(teamId, { provider: 'github', name: 'gh' }, BASE);
    const rotated = await connections.rotateSecret(teamId, c.id, { previous: 'keep' }, BASE);
    expect((await connections.forDelivery(c.id))?.secrets).toEqual([rotated.secret, c.secret]);
    now = T0 + PREVIOUS_SECRET_GRACE_MS - 1;
    expect((await connections.forDelivery(c.id))?.secrets).toEqual([rotated.secret, c.secret]);
    now = T0 + PREVIOUS_SECRET_GRACE_MS;
    expect((await connections.forDelivery(c.id))?.secrets).toEqual([rotated.secret]);
  });

  it('keep is the default; a second rotation keeps only the secret it replaced', async () => {
    const c = await connections.create(teamId, { provider: 'linear', name: 'lin' }, BASE);
    const second = await connections.rotateSecret(teamId, c.id, {}, BASE);
    now = T0 + HOUR;
    const third = await connections.rotateSecret(teamId, c.id, {}, BASE);
    expect((await connections.forDelivery(c.id))?.secrets).toEqual([third.secret, second.secret]);
    // the grace runs from the rotation that started it
    now = T0 + HOUR + PREVIOUS_SECRET_GRACE_MS - 1;
    expect((await connections.forDelivery(c.id))?.secrets).toEqual([third.secret, second.secret]);
  });

  it('revoke: the previous secret stops at once, and one still in its grace goes too', async () => {
    const c = await connections.create(teamId, { provider: 'standard', name: 'std' }, BASE);
    const kept = await connections.rotateSecret(teamId, c.id, { previous: 'keep' }, BASE);
    const revoked = await connections.rotateSecret(teamId, c.id, { previous: 'revoke' }, BASE);
    expect(revoked.secret).toMatch(/^whsec_/);
    expect((await connections.forDelivery(c.id))?.secrets).toEqual([revoked.secret]);
    expect(kept.secret).not.toBe(revoked.secret);
  });

  it('takes the provider-made secret of a rotation', async () => {
    const c = await connections.create(teamId, { provider: 'vercel', name: 'v', secret: 'first-vercel-secret-000' }, BASE);
    const r = await connections.rotateSecret(teamId, c.id, { secret: 'second-vercel-secret-00', previous: 'revoke' }, BASE);
    expect(r.secret).toBe('second-vercel-secret-00');
    expect((await connections.forDelivery(c.id))?.secrets).toEqual(['second-vercel-secret-00']);
  });
});

describe('ConnectionService.forInstallation', () => {
  it("finds the connection claiming a provider's external id, in whichever team", async () => {
    const beta = (await new TeamService(store, clock).createTeam({ slug: 'beta' })).id;
    const c = await connections.create(beta, { provider: 'github', name: 'app', external_id: '777' }, BASE);
    const target = await connections.forInstallation('github', '777');
    expect(target?.connection.id).toBe(c.id);
    expect(target?.team.slug).toBe('beta');
    expect(target?.secrets).toEqual([c.secret]);
    expect(await connections.forInstallation('gitlab', '777')).toBeUndefined();
    expect(await connections.forInstallation('github', '778')).toBeUndefined();
  });
});

describe('the delivery log', () => {
  it('records deliveries, newest first in pages, and moves last_delivery_at', async () => {
    const c = await connections.create(teamId, { provider: 'github', name: 'gh' }, BASE);
    const { connection } = (await connections.forDelivery(c.id))!;
    const recorded = [];
    for (let i = 1; i <= 5; i++) {
      now = T0 + i * 1000;
      recorded.push(
        await connections.recordDelivery(connection, {
          delivery_id: `d-${i}`,
          event_type: i === 3 ? null : 'push',
          status: i === 3 ? 'rejected' : 'accepted',
          reason: i === 3 ? 'the signature does not match the secret' : '1 automation matched',
          event_id: i === 3 ? null : `d-${i}`,
        }),
      );
    }
    expect(recorded[0]).toEqual({
      id: expect.any(String),
      connection_id: c.id,
      received_at: new Date(T0 + 1000).toISOString(),
      delivery_id: 'd-1',
      event_type: 'push',
      status: 'accepted',
      reason: '1 automation matched',
      event_id: 'd-1',
    });
    const first = await connections.deliveries(teamId, c.id, { limit: '2' });
    expect(first.data.map((x) => x.delivery_id)).toEqual(['d-5', 'd-4']);
    const second = await connections.deliveries(teamId, c.id, { limit: '2', cursor: first.next_cursor });
    expect(second.data.map((x) => x.delivery_id)).toEqual(['d-3', 'd-2']);
    const third = await connections.deliveries(teamId, c.id, { limit: '2', cursor: second.next_cursor });
    expect(third.data.map((x) => x.delivery_id)).toEqual(['d-1']);
    expect(third.next_cursor).toBeUndefined();
    expect((await connections.get(teamId, c.id, BASE)).last_delivery_at).toBe(new Date(T0 + 5000).toISOString());
    // another team's view of it: none
    await expect(connections.deliveries('00000000-0000-4000-8000-000000000000', c.id, {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('knows a delivery id seen before: accepted or duplicate, not rejected, and per connection', async () => {
    const a = await connections.create(teamId, { provider: 'github', name: 'a' }, BASE);
    const b = await connections.create(teamId, { provider: 'github', name: 'b' }, BASE);
    const ca = (await connections.forDelivery(a.id))!.connection;
    await connections.recordDelivery(ca, { delivery_id: 'x', event_type: 'push', status: 'rejected', reason: 'bad signature', event_id: null });
    expect(await connections.seenDelivery(a.id, 'x')).toBe(false);
    await connections.recordDelivery(ca, { delivery_id: 'x', event_type: 'push', status: 'accepted', reason: 'ok', event_id: 'x' });
    expect(await connections.seenDelivery(a.id, 'x')).toBe(true);
    expect(await connections.seenDelivery(b.id, 'x')).toBe(false);
    expect(await connections.seenDelivery(a.id, 'y')).toBe(false);
  });

  it('keeps the row of a delivery to a connection deleted meanwhile, for retention to drop', async () => {
    const c = await connections.create(teamId, { provider: 'github', name: 'gone' }, BASE);
    const { connection } = (await connections.forDelivery(c.id))!;
    await connections.delete(teamId, c.id);
    await connections.recordDelivery(connection, { delivery_id: 'late', event_type: 'push', status: 'accepted', reason: 'ok', event_id: 'late' });
    expect(await store.read((tx) => tx.count('deliveries', { connection_id: c.id }))).toBe(1);
    expect(await store.read((tx) => tx.get('connections', c.id))).toBeUndefined();
  });
});

describe('after a restart', () => {
  it('reads back connections, their sealed secrets and deliveries', async () => {
    const c = await connections.create(teamId, { provider: 'github', name: 'gh', external_id: '9' }, BASE);
    const rotated = await connections.rotateSecret(teamId, c.id, {}, BASE);
    await connections.recordDelivery((await connections.forDelivery(c.id))!.connection, { delivery_id: 'd', event_type: 'push', status: 'duplicate', reason: 'seen', event_id: 'd' });
    const before = await store.read(async (tx) => [await tx.list('connections'), await tx.list('deliveries')]);
    await store.close();
    store = await openTestStore(dataDir);
    connections = service();
    expect(await store.read(async (tx) => [await tx.list('connections'), await tx.list('deliveries')])).toEqual(before);
    expect((await connections.forDelivery(c.id))?.secrets).toEqual([rotated.secret, c.secret]);
    expect((await connections.forInstallation('github', '9'))?.connection.id).toBe(c.id);
    expect(await connections.seenDelivery(c.id, 'd')).toBe(true);
  });
});

describe('retention', () => {
  it('drops deliveries older than the retention period, as it drops event receipts, and keeps their connection', async () => {
    const c = await connections.create(teamId, { provider: 'github', name: 'gh' }, BASE);
    const { connection } = (await connections.forDelivery(c.id))!;
    const DAY = 24 * HOUR;
    for (const [id, at] of [['old', T0], ['recent', T0 + 29 * DAY]] as const) {
      now = at;
      await connections.recordDelivery(connection, { delivery_id: id, event_type: 'push', status: 'accepted', reason: 'ok', event_id: id });
    }
    await store.close();
    now = T0 + 31 * DAY;
    const silent = { info() {}, warn() {}, error() {} };
    const url = await testStoreFor(dataDir);
    if (url === undefined) {
      const journal = await openStore({ dataDir, logger: silent, now: clock, retentionDays: 30 });
      store = journal;
      await journal.compact();
    } else {
      const pg = await openPostgresStore({ url, logger: silent, now: clock, retentionDays: 30 });
      store = pg;
      await pg.applyRetention();
    }
    connections = service();
    expect((await connections.deliveries(teamId, c.id, {})).data.map((x) => x.delivery_id)).toEqual(['recent']);
    expect((await connections.get(teamId, c.id, BASE)).id).toBe(c.id);
  });
});
