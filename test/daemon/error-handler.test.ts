// The error handler turns the store's own refusals that reach it into the envelope: a unique value
// taken meanwhile is 409 CONFLICT, a store that cannot be reached now is 503 (code INTERNAL_ERROR,
// as CONTRACT §11 says), never a bare 500. An app of its own (app.inject): no daemon needed.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../daemon/http/error-handler.js';
import { StoreUnavailableError, UniqueViolation } from '../../daemon/store/store.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify({ logger: false });
  registerErrorHandling(app);
  app.get('/unique', async () => {
    throw new UniqueViolation('automations', ['team_id', 'name_key']);
  });
  app.get('/unavailable', async () => {
    throw new StoreUnavailableError('the database cannot be reached (57P01); try again once it is back');
  });
  app.get('/other', async () => {
    throw new Error('secret internals');
  });
  await app.ready();
});
afterAll(() => app.close());

describe('the store refusals a service did not turn into its own answer', () => {
  it('a UniqueViolation is 409 CONFLICT in the envelope, saying which fields', async () => {
    const res = await app.inject({ method: 'GET', url: '/unique' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: { code: 'CONFLICT', message: 'automations: another row already has this team_id and name_key' } });
  });

  it('a StoreUnavailableError is 503 INTERNAL_ERROR in the envelope, with its message', async () => {
    const res = await app.inject({ method: 'GET', url: '/unavailable' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'the database cannot be reached (57P01); try again once it is back' } });
  });

  it('anything else is still a 500 that keeps its internals to the log', async () => {
    const res = await app.inject({ method: 'GET', url: '/other' });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('INTERNAL_ERROR');
    expect(res.body).not.toContain('secret internals');
  });
});
