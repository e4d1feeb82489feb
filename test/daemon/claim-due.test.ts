// Store.claimDue on this project's store: what it leases, and what it says of the keys it passes
// over, which is all the scheduler learns of them (it does not read them again).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/store/store.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openTestStore } from '../helpers/test-store.js';

const NOW = '2030-01-01T00:00:00.000Z';
const BEFORE = '2029-12-31T23:59:00.000Z';
const LATER = '2030-01-01T00:05:00.000Z';

let d: TestDaemon;
let store: Store;
let schedule: string[];
let eventTrigger: string;

beforeAll(async () => {
  d = await startTestDaemon();
  const { api } = await createTeam(d, 'acme');
  const triggers = [...Array.from({ length: 5 }, (_, i) => ({ kind: 'schedule', one_off_at: `2031-01-01T00:00:0${i}Z` })), { kind: 'event', event_type: 'deploy' }];
  const created = await api('POST', '/teams/acme/automations', { name: 'claims', prompt: 'p', triggers });
  expect(created.status).toBe(201);
  const ids = created.body.data.triggers.map((t: { id: string; kind: string }) => t);
  schedule = ids.filter((t: { kind: string }) => t.kind === 'schedule').map((t: { id: string }) => t.id);
  eventTrigger = ids.find((t: { kind: string }) => t.kind === 'event').id;
  // The daemon's scheduler must not lease them meanwhile: the rows are set by hand below.
  await d.close();
  store = await openTestStore(d.dataDir);
});

afterAll(async () => {
  await store?.close();
  await d?.destroy();
});

describe('Store.claimDue', () => {
  it('leases the due slots whose lease is free and reports every other schedule trigger as it found it', async () => {
    const [free, heldByOther, expired, notDue, mine] = schedule;
    await store.write(async (tx) => {
      await tx.update('triggers', free, { next_run_at: BEFORE, lease_owner: null, lease_until: null });
      await tx.update('triggers', heldByOther, { next_run_at: BEFORE, lease_owner: 'daemon-b', lease_until: LATER });
      await tx.update('triggers', expired, { next_run_at: BEFORE, lease_owner: 'daemon-c', lease_until: BEFORE });
      await tx.update('triggers', notDue, { next_run_at: LATER, lease_owner: null, lease_until: null });
      await tx.update('triggers', mine, { next_run_at: BEFORE, lease_owner: 'daemon-a', lease_until: LATER });
    });
    const missing = randomUUID();
    const out = await store.claimDue([free, heldByOther, expired, notDue, mine, missing, eventTrigger], { owner: 'daemon-a', until: LATER, now: NOW, dueBy: NOW });

    expect([...out.claimed].sort()).toEqual([free, expired, mine].sort());
    expect(out.takenOver).toBe(1);
    expect([...out.passed.keys()].sort()).toEqual([heldByOther, notDue].sort());
    expect(out.passed.get(heldByOther)).toEqual({ next_run_at: BEFORE, lease_owner: 'daemon-b', lease_until: LATER });
    expect(out.passed.get(notDue)).toEqual({ next_run_at: LATER, lease_owner: null, lease_until: null });

    const rows = await store.read((tx) => tx.getMany('triggers', [free, heldByOther, expired]));
    expect(rows.map((r) => [r!.lease_owner, r!.lease_until])).toEqual([
      ['daemon-a', LATER],
      ['daemon-b', LATER],
      ['daemon-a', LATER],
    ]);
  });

  it('claims nothing twice: a second claim finds the slots leased', async () => {
    const [a, b] = schedule;
    await store.write(async (tx) => {
      for (const id of [a, b]) await tx.update('triggers', id, { next_run_at: BEFORE, lease_owner: null, lease_until: null });
    });
    const first = await store.claimDue([a, b], { owner: 'daemon-a', until: LATER, now: NOW, dueBy: NOW });
    const second = await store.claimDue([a, b], { owner: 'daemon-b', until: LATER, now: NOW, dueBy: NOW });
    expect(first.claimed.sort()).toEqual([a, b].sort());
    expect(second.claimed).toEqual([]);
    expect(second.passed.get(a)).toEqual({ next_run_at: BEFORE, lease_owner: 'daemon-a', lease_until: LATER });
  });
  it('leases slots due by `dueBy` ahead of their time, and takes over only leases over by `now`', async () => {
    const [soon, laterStill, heldUntilSoon] = schedule;
    const SOON = '2030-01-01T00:00:01.500Z';
    const DUE_BY = '2030-01-01T00:00:02.000Z';
    await store.write(async (tx) => {
      await tx.update('triggers', soon, { next_run_at: SOON, lease_owner: null, lease_until: null });
      await tx.update('triggers', laterStill, { next_run_at: LATER, lease_owner: null, lease_until: null });
      // its lease ends after `now` and before `dueBy`: still held
      await tx.update('triggers', heldUntilSoon, { next_run_at: SOON, lease_owner: 'daemon-b', lease_until: SOON });
    });
    const out = await store.claimDue([soon, laterStill, heldUntilSoon], { owner: 'daemon-a', until: LATER, now: NOW, dueBy: DUE_BY });
    expect(out.claimed).toEqual([soon]);
    expect(out.takenOver).toBe(0);
    expect(out.passed.get(laterStill)).toEqual({ next_run_at: LATER, lease_owner: null, lease_until: null });
    expect(out.passed.get(heldUntilSoon)).toEqual({ next_run_at: SOON, lease_owner: 'daemon-b', lease_until: SOON });
  });
});
