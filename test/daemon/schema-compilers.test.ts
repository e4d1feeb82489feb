// Request validators and response serializers are built when a route first uses them
// (daemon/http/schema-compilers.ts), so a schema Ajv or fast-json-stringify cannot compile would
// fail only the first request or answer that uses it. This builds every one a daemon's routes
// have, as starting an app used to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWaitingSchemas } from '../../daemon/http/schema-compilers.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('route validators and serializers', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(() => d?.close());

  it('a validator built on first use refuses a bad request with its errors, as one built at start', async () => {
    const refused = await d.admin('POST', '/admin/teams', { slug: 'Not A Slug!', surplus: 1 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error.message).toMatch(/slug|surplus/);
  });

  it('every request and response schema of every route compiles', async () => {
    expect(() => buildWaitingSchemas()).not.toThrow();
    expect(buildWaitingSchemas()).toBe(0);
    // Built ahead of use, they answer as when built on first use.
    const health = await d.as(null)('GET', '/health');
    expect(health.status).toBe(200);
    const created = await d.admin('POST', '/admin/teams', { slug: 'serializers' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ slug: 'serializers' });
  });
});
