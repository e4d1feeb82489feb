// The compilers of the routes' schemas, one set per process rather than one per app. Fastify builds
// a validator (Ajv) and a serializer (fast-json-stringify) for every route of every app it makes,
// which is most of what starting an app costs. The routes' schemas are the same objects in every
// app (constants of shared/schemas, never changed after load), so an app started after another in
// the same process (each test worker starts many daemons) takes the functions already built for
// them. Serializers are built when first used, not when the app starts.
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

// Ajv keeps what it compiled by schema object, and the pool hands every app asking with the same
// external schemas and options the same Ajv: nothing more is needed for validators.
const buildValidator = AjvCompiler();

const buildSerializerOf = SerializerSelector();
/** per set of external schemas and options, the serializer built for each response schema object */
const serializers = new Map<string, WeakMap<object, Serializer>>();

const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = buildSerializerOf(externalSchemas, options);
  const key = JSON.stringify([externalSchemas, options]);
  let built = serializers.get(key);
  if (!built) serializers.set(key, (built = new WeakMap()));
  const cache = built;
  return (route) => {
    const schema = route.schema;
    if (typeof schema !== 'object' || schema === null) return compile(route);
    let serializer = cache.get(schema);
    if (!serializer) cache.set(schema, (serializer = builtWhenFirstUsed(() => compile(route))));
    return serializer;
  };
};

/** the builds of the serializers not used yet */
const waiting = new Set<() => Serializer>();

/**
 * A serializer built when it first serializes: a daemon builds those of the answers it gives, not
 * one for every status of every route before it listens.
 */
function builtWhenFirstUsed(build: () => Serializer): Serializer {
  let built: Serializer | undefined;
  const buildNow = () => {
    built ??= build();
    waiting.delete(buildNow);
    return built;
  };
  waiting.add(buildNow);
  return ((data: unknown) => (built ?? buildNow())(data)) as Serializer;
}

/**
 * Builds every serializer not used yet and returns how many: what starting an app used to do, for
 * a test that every response schema of every route compiles.
 */
export function buildWaitingSerializers(): number {
  const builds = [...waiting];
  for (const build of builds) build();
  return builds.length;
}

/** Fastify's `schemaController` option that shares the compilers between the apps of a process. */
export const sharedSchemaCompilers: FastifyServerOptions['schemaController'] = {
  compilersFactory: { buildValidator, buildSerializer },
};
