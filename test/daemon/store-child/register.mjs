import * as module from 'node:module';

if (typeof module.registerHooks === 'function') {
  const { loadSync, resolveSync } = await import('./ts-hooks.mjs');
  module.registerHooks({ resolve: resolveSync, load: loadSync });
} else {
  module.register('./ts-hooks.mjs', import.meta.url);
}
