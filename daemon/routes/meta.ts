// Routes that need no key: health and the OpenAPI document.
import Type from 'typebox';
import { Data } from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';

export const VERSION = '0.1.0';

export function metaRoutes(app: App): void {
  app.get(
    '/health',
    { schema: { tags: ['meta'], response: { 200: Data(Type.Object({ status: Type.Literal('ok'), version: Type.String() })) } } },
    async () => ({ data: { status: 'ok' as const, version: VERSION } }),
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
