// The test daemons of each project run on that project's store (test/helpers/test-store.ts): the
// file project on the JSON-file store in the data folder, the postgres project on PostgreSQL. A
// test that passed on both proves the behaviour on both only if this holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testStoreKind } from '../helpers/test-store.js';

let d: TestDaemon;

beforeAll(async () => {
  d = await startTestDaemon();
});

afterAll(async () => {
  await d?.destroy();
});

describe(`test daemons on the ${testStoreKind()} project`, () => {
  // Test files share worker processes (isolate: false): the store must follow the file's project.
  it('are on the store their project is named after', ({ task }) => {
    expect(task.file.projectName).toBe(testStoreKind());
  });

  it(`report store "${testStoreKind()}" on /health`, async () => {
    const health = await d.as(null)('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.data).toMatchObject({ status: 'ok', store: testStoreKind() });
  });

  it('keep their state in that store, and get it back when restarted on the same data folder', async () => {
    const { api, key } = await createTeam(d, 'acme');
    expect((await api('POST', '/teams/acme/automations', { name: 'kept', prompt: 'p', event_type: 'deploy' })).status).toBe(201);
    await d.close();

    d = await startTestDaemon({ dataDir: d.dataDir });
    const names = (await d.as(key)('GET', '/teams/acme/automations')).body.data.map((a: { name: string }) => a.name);
    expect(names).toEqual(['kept']);
  });

  it('start empty on a new data folder', async () => {
    const other = await startTestDaemon();
    try {
      expect((await other.admin('GET', '/admin/teams')).body.data).toEqual([]);
    } finally {
      await other.destroy();
    }
  });
});
