// The compilers of the routes' schemas, one set per process rather than one per app. Fastify builds
// a validator (Ajv) and a serializer (fast-json-stringify) for every route of every app it makes,
// which is most of what starting an app costs. The routes' schemas are the same objects in every
// app (constants of shared/schemas, never changed after load), so an app started after another in
// the same process (each test worker starts many daemons) takes the functions already built for
// them. Validators and serializers are built when first used, not when the app starts: a daemon
// builds those of the requests it gets and the answers it gives, not one for every part and every
// status of every route before it listens.
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type ValidatorFactory = ReturnType<typeof AjvCompiler>;
type Validator = ReturnType<ReturnType<ValidatorFactory>>;
type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

/** the builds of the validators and serializers not used yet */
const waiting = new Set<() => unknown>();

/**
 * Per compiler (Fastify asks for one per set of external schemas and options: `compilerArgs`), the
 * function built for each schema object, so every app of the process shares it.
 */
function sharedPerSchema<R extends { schema?: unknown }, F>(
  cachesByKey: Map<string, WeakMap<object, F>>,
  compilerArgs: readonly unknown[],
  compile: (route: R) => F,
  lazy: (build: () => F) => F,
) {
  const key = JSON.stringify(compilerArgs);
  let cache = cachesByKey.get(key);
  if (!cache) cachesByKey.set(key, (cache = new WeakMap()));
  const built = cache;
  return (route: R): F => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let fn = built.get(schema);
    if (!fn) built.set(schema, (fn = lazy(() => compile(route))));
    return fn;
  };
}

/** `build`, run at the first call of what it builds (and then no longer waiting). */
function onFirstUse<F>(build: () => F): () => F {
  let built: F | undefined;
  const buildNow = () => {
    built ??= build();
    waiting.delete(buildNow);
    return built;
  };
  waiting.add(buildNow);
  return () => built ?? buildNow();
}

// Ajv's pool hands every app asking with the same external schemas and options the same compiler.
const buildValidatorOf = AjvCompiler();
const validators = new Map<string, WeakMap<object, Validator>>();

const buildValidator: ValidatorFactory = (externalSchemas, options) =>
  sharedPerSchema(validators, [externalSchemas, options], buildValidatorOf(externalSchemas, options), (build) => {
    const validator = onFirstUse(build);
    const validate = ((data: unknown) => validator()(data)) as Validator;
    // Fastify reads a failed validation's errors from the function it called.
    Object.defineProperty(validate, 'errors', { get: () => (validator() as { errors?: unknown }).errors });
    return validate;
  });

const buildSerializerOf = SerializerSelector();
const serializers = new Map<string, WeakMap<object, Serializer>>();

const buildSerializer: SerializerFactory = (externalSchemas, options) =>
  sharedPerSchema(serializers, [externalSchemas, options], buildSerializerOf(externalSchemas, options), (build) => {
    const serializer = onFirstUse(build);
    return ((data: unknown) => serializer()(data)) as Serializer;
  });

/**
 * Builds every validator and serializer not used yet and returns how many: what starting an app
 * used to do, for a test that every schema of every route compiles.
 */
export function buildWaitingSchemas(): number {
  const builds = [...waiting];
  for (const build of builds) build();
  return builds.length;
}

/** Fastify's `schemaController` option that shares the compilers between the apps of a process. */
export const sharedSchemaCompilers: FastifyServerOptions['schemaController'] = {
  compilersFactory: { buildValidator, buildSerializer },
};
