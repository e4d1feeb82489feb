import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { testStoreKind } from '../helpers/test-store.js';

let d: TestDaemon;
let api: Requester;
let key: string;
beforeAll(async () => {
  d = await startTestDaemon();
  ({ api, key } = await createTeam(d, 'acme'));
});

/** A GET with a body, which fetch refuses to send. */
function getWithBody(path: string, body: string | undefined, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const url = new URL(d.url + path);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    // (Node frames a GET body only as told: chunked, or with the length set here)
    if (body !== undefined && headers['transfer-encoding'] === undefined) req.setHeader('content-length', Buffer.byteLength(body));
    if (body !== undefined) req.write(body);
    req.end();
  });
}
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

  it('refuses a GET that carries a body, after authentication, rather than dropping what it says', async () => {
    const auth = { authorization: `Bearer ${key}` };
    for (const [body, headers] of [
      ['{"environment_slug":"nope"}', { 'content-type': 'application/json' }],
      ['hello', { 'content-type': 'text/plain' }],
      ['{bad', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }],
    ] as const) {
      const res = await getWithBody('/teams/acme/env-vars', body, { ...auth, ...headers });
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'VALIDATION_ERROR');
      expect(res.body.error.message).toBe('a GET request takes no body: send selectors in the query string');
    }
    expect((await getWithBody('/teams/acme/env-vars', '{}', { 'content-type': 'application/json' })).status).toBe(401);
    expect((await getWithBody('/teams/acme/automations', undefined, { ...auth, 'content-length': '0' })).status).toBe(200);
  });

  it('answers a non-JSON content type with 400 VALIDATION_ERROR', async () => {
    const res = await api('POST', '/teams/acme/automations', undefined, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
  });

  it('refuses a string with an unpaired surrogate escape anywhere in a body, key or value, and takes a paired one', async () => {
    const send = (raw: string) => api('POST', '/teams/acme/webhooks/events', undefined, { raw, headers: { 'content-type': 'application/json' } });
    for (const raw of ['{"event_type":"\\ud800"}', '{"event_type":"x","data":{"a":["\\udc00b"]}}', '{"event_type":"x","data":{"\\uDBFF":1}}', '{"event_type":"x\\udc00\\ud800"}']) {
      const res = await send(raw);
      expect([raw, res.status, res.body.error?.message]).toEqual([raw, 400, 'request body has a string with an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape), which is not Unicode text']);
    }
    const paired = await send('{"event_type":"surrogates \\ud83d\\ude80","id":"paired-surrogates"}');
    expect([paired.status, paired.body.data?.accepted]).toEqual([200, false]);
    const [stored] = (await api('GET', '/teams/acme/events?event_type=surrogates%20%F0%9F%9A%80')).body.data;
    expect(stored.event_type).toBe('surrogates 🚀');
  });

  it('refuses a body with a content coding (it is not decompressed) with 400, storing nothing; identity is fine', async () => {
    const raw = '{"event_type":"coded","id":"coded-1"}';
    for (const encoding of ['gzip', 'br', 'deflate, gzip']) {
      const res = await api('POST', '/teams/acme/webhooks/events', undefined, { raw, headers: { 'content-type': 'application/json', 'content-encoding': encoding } });
      expect([encoding, res.status, res.body.error?.message]).toEqual([encoding, 400, `request bodies are read as sent, not decompressed: send the body without Content-Encoding (got "${encoding}")`]);
    }
    expect((await api('GET', '/teams/acme/events?event_type=coded')).body.data).toEqual([]);
    const plain = await api('POST', '/teams/acme/webhooks/events', undefined, { raw, headers: { 'content-type': 'application/json', 'content-encoding': 'identity' } });
    expect(plain.status).toBe(200);
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

  it('refuses a body field on every DELETE route with 400, and deletes nothing; no body or {} deletes', async () => {
    const project = (await d.admin('POST', '/admin/teams/acme/projects', { name: 'del' })).body.data;
    const projectApi = d.as((await d.admin('POST', `/admin/projects/${project.id}/key`)).body.data.key);
    const env = (await d.admin('POST', '/admin/teams/acme/environments', { name: 'Del', slug: 'del-env', project_id: project.id })).body.data;
    await d.admin('POST', '/admin/teams', { slug: 'doomed', name: 'Doomed' });
    const keyId = (await d.admin('POST', '/admin/teams/acme/keys', { name: 'spare' })).body.data.id;
    await api('PUT', '/teams/acme/env-vars/DEL_ME', { value: 'default-value' });
    const automation = (
      await api('POST', '/teams/acme/automations', {
        name: 'to delete',
        prompt: 'p',
        environment_id: env.id,
        triggers: [{ kind: 'schedule', cron_expression: '0 1 * * *' }, { kind: 'schedule', cron_expression: '0 2 * * *' }],
      })
    ).body.data;
    const routes: [Requester, string, () => Promise<number>][] = [
      [d.admin, '/admin/teams/doomed', async () => ((await d.admin('GET', '/admin/teams')).body.data.some((t: any) => t.slug === 'doomed') ? 200 : 404)],
      [d.admin, `/admin/teams/acme/keys/${keyId}`, async () => ((await d.admin('GET', '/admin/teams/acme/keys')).body.data.find((k: any) => k.id === keyId).revoked_at ? 404 : 200)],
      [api, '/teams/acme/env-vars/DEL_ME', async () => ((await api('GET', '/teams/acme/env-vars')).body.data.some((v: any) => v.name === 'DEL_ME') ? 200 : 404)],
      [api, `/teams/acme/automations/${automation.id}`, async () => (await api('GET', `/teams/acme/automations/${automation.id}`)).status],
    ];
    routes.push([projectApi, `/projects/${project.id}/schedules/${automation.triggers[0].id}`, async () => ((await api('GET', `/teams/acme/automations/${automation.id}`)).body.data?.triggers.length === 2 ? 200 : 404)]);
    for (const [as, path, exists] of routes) {
      const refused = await as('DELETE', path, { environment_slug: 'staging' });
      expect(refused.status, path).toBe(400);
      expectEnvelope(refused.body, 'VALIDATION_ERROR');
      expect(refused.body.error.message).toContain('body.environment_slug');
      expect(await exists(), path).toBe(200);
    }
    for (const [as, path, exists] of routes.reverse()) {
      expect((await as('DELETE', path, {})).status, path).toBe(200);
      expect(await exists(), path).toBe(404);
    }
  });

  it('refuses a body nested more than 100 levels deep with 400, and stores nothing; 100 levels pass', async () => {
    // Written as text: serialising 5000 levels would overflow the test's own stack.
    const send = (id: string, levels: number) =>
      api('POST', '/teams/acme/webhooks/events', undefined, {
        raw: `{"event_type":"deep","id":"${id}","data":${'{"a":'.repeat(levels)}1${'}'.repeat(levels + 1)}`,
        headers: { 'content-type': 'application/json' },
      });
    // The event is one level and its data the next, so data holding 99 more objects is 101 in all.
    const deep = await send('deep-5000', 5000);
    expect(deep.status).toBe(400);
    expectEnvelope(deep.body, 'VALIDATION_ERROR');
    expect(deep.body.error.message).toContain('100 levels');
    expect((await send('deep-101', 100)).status).toBe(400);
    expect((await send('deep-100', 99)).status).toBe(200);
    const stored = (await api('GET', '/teams/acme/events?event_type=deep')).body.data.map((e: { id: string }) => e.id);
    expect(stored).toEqual(['deep-100']);
  });

  it('refuses a number beyond a double (it would be stored as null) with 400, and stores nothing', async () => {
    const send = (id: string, n: string) =>
      api('POST', '/teams/acme/webhooks/events', undefined, {
        raw: `{"event_type":"huge","id":"${id}","data":{"n":${n},"text":"1e999 in a string is text"}}`,
        headers: { 'content-type': 'application/json' },
      });
    for (const [id, n] of [['pos', '1e400'], ['neg', '-1E+0400'], ['digits', '9'.repeat(400)]]) {
      const res = await send(id, n);
      expect(res.status, n).toBe(400);
      expectEnvelope(res.body, 'VALIDATION_ERROR');
      expect(res.body.error.message).toContain('beyond what a JSON number can hold');
    }
    expect((await send('fits', '1.7e308')).status).toBe(200);
    expect((await send('tiny', '1e-400')).status).toBe(200); // underflows to 0, as any JSON reader does
    const stored = (await api('GET', '/teams/acme/events?event_type=huge')).body.data.map((e: { id: string }) => e.id);
    expect(stored.sort()).toEqual(['fits', 'tiny']);
  });

  it('answers a path segment over 1000 characters and an undecodable URL in the envelope, with a request id', async () => {
    for (const path of [`/teams/${'a'.repeat(1001)}/automations`, '/teams/acme/automations/%E0%A4%A']) {
      const res = await api('GET', path);
      expect(res.status).toBe(400);
      expectEnvelope(res.body, 'VALIDATION_ERROR');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Under the limit, a long slug is just a team that does not exist.
    expect((await api('GET', `/teams/${'a'.repeat(120)}/automations`)).status).toBe(404);
  });

  it('puts an X-Request-Id on every response, errors and unauthenticated ones included', async () => {
    for (const res of [await api('GET', '/teams/acme/automations'), await api('GET', '/nope'), await d.as(null)('GET', '/teams/acme/automations'), await d.as(null)('GET', '/health')]) {
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('serves /health without a key', async () => {
    const res = await d.as(null)('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        status: 'ok',
        version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
        store: testStoreKind(),
        instance: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      },
    });
  });

  it('serves an OpenAPI 3 document describing the routes', async () => {
    const res = await d.as(null)('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    // the interface's version (spec §9), not the daemon's (which /health gives)
    expect(res.body.info.version).toBe('1.0.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/teams/{teamSlug}/automations', '/teams/{teamSlug}/automations/{automationId}', '/teams/{teamSlug}/env-vars/{name}', '/projects/{id}', '/admin/teams']),
    );
    const create = res.body.paths['/teams/{teamSlug}/automations'].post;
    expect(create.requestBody.content['application/json'].schema.properties).toHaveProperty('triggers');
  });

  it('says in the OpenAPI document which routes need no key, that errors are the envelope, and which bodies may be left out', async () => {
    const { paths, components } = (await d.as(null)('GET', '/openapi.json')).body;
    expect(paths['/health'].get.security).toEqual([]);
    // each operation names the one credential it takes
    expect(Object.keys(components.securitySchemes).sort()).toEqual(['adminToken', 'projectKey', 'teamKey']);
    expect(paths['/teams/{teamSlug}/automations'].post.security).toEqual([{ teamKey: [] }]);
    expect(paths['/admin/teams'].get.security).toEqual([{ adminToken: [] }]);
    expect(paths['/projects/{id}'].get.security).toEqual([{ projectKey: [] }]);
    expect(components.schemas.ErrorEnvelope.properties.error.required).toEqual(['code', 'message']);
    for (const [path, methods] of Object.entries(paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [method, op] of Object.entries(methods)) {
        expect([path, method, op.responses['4XX']]).toEqual([path, method, expect.objectContaining({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } })]);
      }
    }
    expect(paths['/teams/{teamSlug}/automations/{automationId}/runs'].post.requestBody.required).toBe(false);
    expect(paths['/admin/teams/{slug}/keys'].post.requestBody.required).toBe(false);
    expect(paths['/admin/teams'].post.requestBody.required).toBe(true);
  });

  it('declares the headers answers carry: X-Request-Id on all, the rate headers where a key is taken, Retry-After on its 429', async () => {
    const { paths, components } = (await d.as(null)('GET', '/openapi.json')).body;
    const refs = (names: string[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
    const rate = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
    expect(Object.keys(components.headers).sort()).toEqual(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']);
    expect(components.headers['X-RateLimit-Reset'].schema).toEqual({ type: 'integer' });

    const health = paths['/health'].get.responses;
    expect(health['200'].headers).toEqual(refs(['X-Request-Id']));
    expect(health).not.toHaveProperty('429');

    const create = paths['/teams/{teamSlug}/automations'].post.responses;
    expect(create['201'].headers).toEqual(refs(['X-Request-Id', ...rate]));
    expect(create['4XX'].headers).toEqual(refs(['X-Request-Id', ...rate]));
    expect(create['429']).toMatchObject({ headers: refs(['X-Request-Id', ...rate, 'Retry-After']), content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });
    // the admin token has a limit of its own, with the same headers
    expect(paths['/admin/teams'].post.responses['429'].headers).toEqual(refs(['X-Request-Id', ...rate, 'Retry-After']));
  });

  it('names every operation once (operationId, for generated clients) and sums it up', async () => {
    const { paths } = (await d.as(null)('GET', '/openapi.json')).body;
    const ops = Object.values(paths as Record<string, Record<string, { operationId?: string; summary?: string }>>).flatMap((methods) => Object.values(methods));
    expect(ops.length).toBeGreaterThanOrEqual(34);
    for (const op of ops) expect(op.operationId, JSON.stringify(op).slice(0, 80)).toMatch(/^[a-z][A-Za-z]+$/);
    for (const op of ops) expect(op.summary).toMatch(/\S/);
    expect(new Set(ops.map((op) => op.operationId)).size).toBe(ops.length);
    expect(paths['/teams/{teamSlug}/webhooks/events'].post.operationId).toBe('sendEvent');
    expect([paths['/teams/{teamSlug}/automations/{automationId}'].put.operationId, paths['/teams/{teamSlug}/automations/{automationId}'].patch.operationId]).toEqual([
      'updateAutomationWithPut',
      'updateAutomation',
    ]);
  });

  it('gives fixed sets of values as string enums and page sizes as integers, which code generators map to their own types', async () => {
    const { paths, components } = (await d.as(null)('GET', '/openapi.json')).body;
    /** A schema, its $ref to a named component followed. */
    const deref = (schema: any): any => (schema?.$ref ? components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema);
    const doc = JSON.stringify(paths);
    // No anyOf of constants is left anywhere: each became an enum.
    expect(doc).not.toMatch(/"const"/);
    const params = paths['/teams/{teamSlug}/sessions'].get.parameters as { name: string; schema: unknown }[];
    expect(params.find((p) => p.name === 'status')!.schema).toEqual({ type: 'string', enum: ['queued', 'running', 'completed', 'failed', 'cancelled'] });
    const pageSizes = Object.values(paths as Record<string, Record<string, { parameters?: { name: string; schema: unknown }[] }>>)
      .flatMap((methods) => Object.values(methods))
      .flatMap((op) => (op.parameters ?? []).filter((p) => p.name === 'limit'));
    expect(pageSizes.length).toBeGreaterThanOrEqual(4);
    for (const p of pageSizes) expect(p.schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    const automation = deref(paths['/teams/{teamSlug}/automations'].post.responses['201'].content['application/json'].schema.properties.data).properties;
    expect([automation.automation_type, deref(automation.triggers.items).properties.kind]).toEqual([
      { type: 'string', enum: ['schedule', 'event'] },
      { type: 'string', enum: ['schedule', 'event'] },
    ]);
    // Requests too: a trigger's kind and a filter's operator are enums a client can type.
    const trigger = paths['/teams/{teamSlug}/automations'].post.requestBody.content['application/json'].schema.properties.triggers.items.properties;
    expect(trigger.kind).toEqual({ type: 'string', enum: ['schedule', 'event'] });
    expect(deref(trigger.filters.items).properties.operator.enum).toContain('not_exists');
    const refused = await api('POST', '/teams/acme/automations', { name: 'bad op', prompt: 'p', triggers: [{ kind: 'event', event_type: 'e', filters: [{ jsonPath: '$.a', operator: 'like', value: 'x' }] }] });
    expect([refused.status, refused.body.error.message]).toEqual([400, expect.stringMatching(/^body\.triggers\[0\]\.filters\[0\]\.operator must be one of "equals", "not_equals", /)]);
  });

  it('names the shared shapes as components, referred to from every route that answers with them', async () => {
    const { paths, components } = (await d.as(null)('GET', '/openapi.json')).body;
    for (const name of ['Automation', 'Trigger', 'EventFilter', 'Session', 'SessionWithMessages', 'Message', 'Team', 'Environment', 'Project', 'EnvVar', 'EventResult', 'ReceivedEvent', 'ScanResult']) {
      expect(components.schemas[name], name).toMatchObject({ type: 'object', title: name });
    }
    const data = (path: string, method: string, status: string) => paths[path][method].responses[status].content['application/json'].schema.properties.data;
    expect(data('/teams/{teamSlug}/automations', 'post', '201')).toEqual({ $ref: '#/components/schemas/Automation' });
    expect(data('/teams/{teamSlug}/automations', 'get', '200').items).toEqual({ $ref: '#/components/schemas/Automation' });
    expect(data('/teams/{teamSlug}/sessions/{sessionId}', 'get', '200')).toEqual({ $ref: '#/components/schemas/SessionWithMessages' });
    expect(JSON.stringify(paths)).not.toContain('"title"');
    // a session's event is the normalised event, or null: the null stays with the use, not the shape
    expect(components.schemas.Session.properties.event).toEqual({ anyOf: [{ $ref: '#/components/schemas/NormalisedEvent' }, { type: 'object', nullable: true, enum: [null] }] });
    expect(components.schemas.NormalisedEvent).toMatchObject({ type: 'object', required: expect.arrayContaining(['id', 'provider', 'event_type', 'received_at']) });
    expect(components.schemas.NormalisedEvent).not.toHaveProperty('nullable');
  });

  it("real sessions, with an event and without, validate against the document's Session (OpenAPI 3.0 nullable)", async () => {
    const { components } = (await d.as(null)('GET', '/openapi.json')).body;
    // Ajv knows OpenAPI 3.0's `nullable`; the components are one schema whose refs resolve in it.
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components }, 'doc');
    const validSession = ajv.compile({ $ref: 'doc#/components/schemas/Session' });
    const plain = (await api('POST', '/teams/acme/sessions', { prompt: 'no event' })).body.data;
    expect(plain.event).toBeNull();
    expect(validSession(plain), JSON.stringify(validSession.errors)).toBe(true);
    await api('POST', '/teams/acme/automations', { name: 'validated event session', prompt: 'p', event_type: 'doc.checked' });
    await api('POST', '/teams/acme/webhooks/events', { event_type: 'doc.checked', id: 'doc-1', data: { a: 1 } });
    const started = (await api('GET', '/teams/acme/sessions?limit=1')).body.data[0];
    expect(started.event).toMatchObject({ id: 'doc-1', event_type: 'doc.checked' });
    expect(validSession(started), JSON.stringify(validSession.errors)).toBe(true);
    expect(validSession({ ...started, event: 'not an event' })).toBe(false);
  });

  it('sends the headers the document declares', async () => {
    const created = await api('POST', '/teams/acme/automations', { name: 'headers declared', prompt: 'p', event_type: 'e' });
    expect(created.status).toBe(201);
    for (const h of ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(created.headers.get(h), h).toMatch(/^[0-9a-f-]+$/);
    const health = await d.as(null)('GET', '/health');
    expect([health.headers.get('x-request-id') !== null, health.headers.get('x-ratelimit-limit')]).toEqual([true, null]);
  });
});
