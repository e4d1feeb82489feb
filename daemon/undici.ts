// undici, loaded by the first call rather than at start: only a daemon that scans repositories or
// hands turns to a webhook needs it, and every other daemon starts without loading it.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const undici = (): typeof import('undici') => require('undici');
