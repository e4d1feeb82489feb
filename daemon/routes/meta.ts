// Routes that need no key: health and the OpenAPI document.
import Type from 'typebox';
import { Data } from '../../shared/schemas/index.js';
import { ApiError } from '../errors.js';
import type { App } from '../http/types.js';
import type { Store } from '../store/store.js';

/** The daemon's own version (`/health`). */
export const VERSION = '0.1.0';
/** The version of the interface it implements (spec §9: 1.0.0, under /api/v1): the OpenAPI document's. */
export const API_VERSION = '1.0.0';

export function metaRoutes(app: App, store: Pick<Store, 'health' | 'kind'>, instanceId: string): void {
  app.get(
    '/health',
    {
      schema: {
        tags: ['meta'],
        response: {
          200: Data(
            Type.Object({
              status: Type.Literal('ok'),
              version: Type.String(),
              store: Type.Union([Type.Literal('file'), Type.Literal('postgres')]),
              instance: Type.String({ description: "this daemon's id, the value it writes as lease_owner" }),
            }),
          ),
        },
      },
    },
    async () => {
      // A daemon that can no longer store anything is not healthy, whatever else still answers.
      const failure = await store.health();
      if (failure) throw new ApiError('INTERNAL_ERROR', `the store takes no more writes: ${failure.message}`, 503);
      return { data: { status: 'ok' as const, version: VERSION, store: store.kind, instance: instanceId } };
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
