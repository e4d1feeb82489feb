// Building blocks every resource schema uses.
import Type, { type TSchema } from 'typebox';

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/**
 * One of a fixed set of strings, as `{type: string, enum}`: code generators make an enum of it,
 * where an `anyOf` of constants becomes a wrapper class in some languages.
 */
export const StringEnum = <const V extends string[]>(values: readonly [...V], options: { description?: string } = {}) =>
  Type.Enum(values, { type: 'string', ...options });
export const JsonObject = Type.Record(Type.String(), Type.Unknown());

/** `{ data: T }`, the success envelope of every route. */
export const Data = <T extends TSchema>(t: T) => Type.Object({ data: t });
/** A page of a list: `{ data: T[], next_cursor? }`. */
export const Page = <T extends TSchema>(t: T) =>
  Type.Object({ data: Type.Array(t), next_cursor: Type.Optional(Type.String()) });

export const Success = Type.Object({ success: Type.Literal(true) });
/** The body of a route that takes none: absent or `{}`, nothing else (a stray field is a 400). */
export const NoBody = Type.Object({}, { additionalProperties: false });
/** The query of a route that takes no query parameters: any is 400, as on the routes that take some. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

export const ErrorBody = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

export const TeamSlug = Type.String({ minLength: 1, description: 'the team slug (its id is accepted too)' });
export const TeamSlugParams = Type.Object({ teamSlug: TeamSlug });
/** Spec §4.7 names the team of `GET /teams/{id}/env-vars` by its id; the slug is accepted too. */
export const TeamIdParams = Type.Object({ id: Type.String({ minLength: 1, description: 'the team id (its slug is accepted too)' }) });

/**
 * A list's page size. Query numbers arrive as strings (validation keeps types strict
 * everywhere), so the pattern is checked here and the range, with a message saying so, by the daemon.
 */
export const QueryLimit = Type.String({ pattern: '^[0-9]{1,9}$', description: 'page size, 1-200 (default 50)' });
