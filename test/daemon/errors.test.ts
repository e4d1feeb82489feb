import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
let api: Requester;
beforeAll(async () => {
  d = await startTestDaemon();
  ({ api } = await createTeam(d, 'acme'));
});
afterAll(() => d.destroy());

const expectEnvelope = (body: any, code: string) => {
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
};

describe('error envelope', () => {
  it('answers unknown routes with 404 NOT_FOUND in the envelope', async () => {
    const res = await api('GET', '/nope');
    expect(res.status).toBe(404);
    expectEnvelope(res.body, 'NOT_FOUND');
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const res = await api('POST', '/teams/acme/automations', undefined, { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
  });

  it('answers a non-JSON content type with 400 VALIDATION_ERROR', async () => {
    const res = await api('POST', '/teams/acme/automations', undefined, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
  });

  it('answers bodies over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await api('POST', '/teams/acme/webhooks/events', { event_type: 'x', data: { blob: 'a'.repeat(1024 * 1024 + 10) } });
    expect(res.status).toBe(413);
    expectEnvelope(res.body, 'PAYLOAD_TOO_LARGE');
  });

  it('names the field in a validation error: wrong type, bad uuid in a path, unknown property', async () => {
    const wrongType = await api('POST', '/teams/acme/automations', { name: 5, prompt: 'p', one_off_at: '2099-01-01T00:00:00Z' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.message).toContain('body.name');
    const badUuid = await api('GET', '/teams/acme/automations/not-a-uuid');
    expect(badUuid.status).toBe(400);
    expect(badUuid.body.error.message).toContain('params.automationId');
    const extra = await api('POST', '/teams/acme/skills/scan', { repository: 'https://github.com/a/b', ref: 'main', extra: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toContain('body.extra');
  });

  it('puts an X-Request-Id on every response, errors and unauthenticated ones included', async () => {
    for (const res of [await api('GET', '/teams/acme/automations'), await api('GET', '/nope'), await d.as(null)('GET', '/teams/acme/automations'), await d.as(null)('GET', '/health')]) {
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('serves /health without a key', async () => {
    const res = await d.as(null)('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) } });
  });

  it('serves an OpenAPI 3 document describing the routes', async () => {
    const res = await d.as(null)('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/teams/{teamSlug}/automations', '/teams/{teamSlug}/automations/{automationId}', '/teams/{teamSlug}/env-vars/{name}', '/projects/{id}', '/admin/teams']),
    );
    const create = res.body.paths['/teams/{teamSlug}/automations'].post;
    expect(create.requestBody.content['application/json'].schema.properties).toHaveProperty('triggers');
  });
});
