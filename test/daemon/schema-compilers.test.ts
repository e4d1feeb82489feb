// Response serializers are built when a route first answers (daemon/http/schema-compilers.ts), so a
// schema fast-json-stringify cannot compile would fail only the first answer that uses it. This
// builds every one a daemon's routes have, as starting an app used to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWaitingSerializers } from '../../daemon/http/schema-compilers.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('route response serializers', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(() => d?.close());

  it('every response schema of every route compiles', async () => {
    expect(() => buildWaitingSerializers()).not.toThrow();
    expect(buildWaitingSerializers()).toBe(0);
    // Built ahead of use, they answer as when built on first use.
    const health = await d.as(null)('GET', '/health');
    expect(health.status).toBe(200);
    const created = await d.admin('POST', '/admin/teams', { slug: 'serializers' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ slug: 'serializers' });
  });
});
