// Node module hooks that let a child process run the repo's TypeScript sources directly (Node 20
// has no type stripping): `.js` specifiers that do not exist resolve to their `.ts` twin, and
// `.ts` files are transpiled with the project's own TypeScript. `resolve` and `load` are the
// asynchronous hooks of module.register (Node 20); `resolveSync` and `loadSync` the same for
// module.registerHooks, where Node has it (module.register is deprecated there).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The `.ts` twin of a relative `.js` specifier that was not found, or undefined. */
function twinOf(specifier, err) {
  const relative = specifier.startsWith('.') || specifier.startsWith('file:');
  return err?.code === 'ERR_MODULE_NOT_FOUND' && relative && specifier.endsWith('.js') ? `${specifier.slice(0, -3)}.ts` : undefined;
}

function transpiled(path, text) {
  const { outputText } = ts.transpileModule(text, {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}

const isTs = (url) => url.startsWith('file:') && url.endsWith('.ts');

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    const twin = twinOf(specifier, err);
    if (twin) return next(twin, context);
    throw err;
  }
}

export function resolveSync(specifier, context, next) {
  try {
    return next(specifier, context);
  } catch (err) {
    const twin = twinOf(specifier, err);
    if (twin) return next(twin, context);
    throw err;
  }
}

export function loadSync(url, context, next) {
  if (!isTs(url)) return next(url, context);
  const path = fileURLToPath(url);
  return transpiled(path, readFileSync(path, 'utf8'));
}

// (the same: an asynchronous `next` hands back a promise, which is returned as it is)
export const load = async (url, context, next) => loadSync(url, context, next);
