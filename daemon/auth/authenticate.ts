// Who is calling: turns the bearer token into a principal, enforces which kind of key a route
// takes (CONTRACT §2, spec §5), applies the rate limits and sets their headers (CONTRACT §9).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { RateCounters, Store, WindowCount } from '../store/store.js';
import type { ApiKeyRow, TeamRow } from '../store/tables.js';
import { hashKey, keyTypeOf, secretsEqual, type KeyType } from './keys.js';
import { afterHit, beforeHit, rateLimited, setRateHeaders, type WindowState } from './rate-limit.js';

/** Which credential a route takes; routes say it in `config.auth`. */
export type RouteAuth = 'none' | 'admin' | 'team' | 'project';

export type Principal =
  | { kind: 'admin' }
  | { kind: 'team'; keyId: string; teamId: string }
  | { kind: 'project'; keyId: string; teamId: string; projectId: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal?: Principal;
    /** the team named by a team route's path, resolved and checked against the key */
    team?: TeamRow;
  }
}

export interface AuthOptions {
  store: Store;
  clock: Clock;
  adminToken: string;
  rateLimit: number;
  adminRateLimit: number;
  authFailureLimit: number;
  /** the counters of the three limits, told apart by a bucket prefix (see openRateCounters) */
  counters: RateCounters;
}

const LAST_USED_GRANULARITY_MS = 60_000;
/** bearer -> hash entries kept before the memo starts over (bounds what random keys can fill) */
const HASH_MEMO_SIZE = 1024;

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

/** 401 for a valid credential on a route that takes another kind: not a failed authentication. */
class WrongKeyKind extends ApiError {
  constructor(
    message: string,
    /** whose allowance the request spends: the key's id, or 'admin' */
    readonly limitedAs: string,
  ) {
    super('UNAUTHORIZED', message);
  }
}

/** A credential that authenticated, and its key's row (none for the admin token). */
interface Identified {
  principal: Principal;
  key?: ApiKeyRow;
}

/** What registerAuth leaves for answers given before routing (see countUnrouted). */
export interface UnroutedCharge {
  /**
   * Spends the allowance of the key a request carries, with the rate-limit headers, for a request
   * answered without a route (a 404, a URL that does not decode). Throws the 429 once over.
   */
  countUnrouted(req: FastifyRequest, reply: FastifyReply): Promise<void>;
}

export function registerAuth(app: FastifyInstance, opts: AuthOptions): UnroutedCharge {
  const now = () => opts.clock().getTime();
  const { counters } = opts;
  /** counts nothing for an address past the failure limit: it gets that 429 instead */
  const unlessBlocked = (address: string) => ({ bucket: `fail:${address}`, limit: opts.authFailureLimit });
  // A SHA-256 per request was the largest cost of authenticating; the same keys come back.
  const hashes = new Map<string, string>();
  const hashOf = (bearer: string): string => {
    let hash = hashes.get(bearer);
    if (hash === undefined) {
      if (hashes.size >= HASH_MEMO_SIZE) hashes.clear();
      hashes.set(bearer, (hash = hashKey(bearer)));
    }
    return hash;
  };

  app.addHook('onRequest', async (req, reply) => {
    const auth = req.routeOptions.config?.auth ?? 'none';
    if (auth === 'none') {
      if (req.is404) await countUnrouted(req, reply);
      return;
    }

    // An address past the failure limit gets 429 whatever it sends. That is checked in the
    // statement that counts the request (the key's, or the failure), not by a read in front of it.
    const address = req.ip;
    let identified: Identified;
    try {
      identified = await identify(req, auth);
    } catch (err) {
      // A valid credential of the wrong kind is refused, but it is no guess at a key: it spends
      // its own allowance instead, so it cannot be sent without limit either. A lookup that failed
      // (the store cannot answer) is no failed authentication: counted, a failed store's 500s would
      // turn into 429s naming failed authentications, for every client behind one address.
      if (err instanceof WrongKeyKind) enforce(reply, await spendAllowance(reply, err.limitedAs, address));
      else if (err instanceof ApiError) await countFailure(reply, address);
      else await refuseBlocked(reply, address);
      throw err;
    }
    const { principal } = identified;
    const window = await spendAllowance(reply, principal.kind === 'admin' ? 'admin' : principal.keyId, address);
    req.principal = principal;
    await touchLastUsed(identified);
    enforce(reply, window);

    // Team routes name their team {teamSlug}, except spec §4.7's `GET /teams/{id}/env-vars`.
    const params = req.params as Record<string, string> | undefined;
    const teamRef = auth === 'team' ? (params?.teamSlug ?? params?.id) : undefined;
    if (principal.kind === 'team' && teamRef !== undefined) {
      const team = await opts.store.read((tx) => tx.get('teams', principal.teamId));
      // Another team's slug (or id) answers 404, so its existence is not revealed.
      // (ids are lower-case; one in capitals is the same UUID)
      if (!team || (team.slug !== teamRef && team.id !== teamRef.toLowerCase())) throw new ApiError('NOT_FOUND', 'team not found');
      req.team = team;
    }
  });

  /**
   * Counts one request against `limitedAs` (a key's id, or 'admin'), unless `address` is past the
   * failure limit (then its 429, counting nothing). enforce() applies the result.
   */
  async function spendAllowance(reply: FastifyReply, limitedAs: string, address: string): Promise<WindowState> {
    const admin = limitedAs === 'admin';
    const bucket = admin ? 'admin' : `key:${limitedAs}`;
    const limit = admin ? opts.adminRateLimit : opts.rateLimit;
    const result = await counters.hit(bucket, { unlessAt: unlessBlocked(address) });
    if (!result.counted) {
      // The address is past the failure limit, so the request is not counted; but the credential
      // is valid, and its answer carries that credential's headers, as every authenticated answer
      // does (CONTRACT §9). Rare enough for a read of its own.
      setRateHeaders(reply, beforeHit(limit, await counters.peek(bucket)));
      throw tooManyFailures(reply, result);
    }
    return afterHit(limit, result);
  }

  /** The rate-limit headers of a spent allowance; 429 once over. */
  function enforce(reply: FastifyReply, window: WindowState): void {
    setRateHeaders(reply, window);
    if (!window.allowed) throw rateLimited(reply, window, now(), 'rate limit exceeded for this key');
  }

  /** Counts a failed authentication from `address`; 429 instead once the address is past the limit. */
  async function countFailure(reply: FastifyReply, address: string): Promise<void> {
    const failures = unlessBlocked(address);
    const result = await counters.hit(failures.bucket, { unlessAt: failures });
    if (!result.counted) throw tooManyFailures(reply, result);
  }

  /** The 429 of an address past the failure limit, where nothing is to be counted. */
  async function refuseBlocked(reply: FastifyReply, address: string): Promise<void> {
    const failures = await counters.peek(unlessBlocked(address).bucket);
    if (failures.count >= opts.authFailureLimit) throw tooManyFailures(reply, failures);
  }

  const tooManyFailures = (reply: FastifyReply, failures: WindowCount) =>
    rateLimited(reply, beforeHit(opts.authFailureLimit, failures), now(), 'too many failed authentications from this address');

  // Spec §5: a request under way with a key revoked meanwhile (a project key rotated while its
  // body was still arriving) gets 401 too. Checked again once the body is in, before the route runs.
  app.addHook('preHandler', async (req) => {
    const principal = req.principal;
    if (principal === undefined || principal.kind === 'admin') return;
    const row = await opts.store.read((tx) => tx.get('api_keys', principal.keyId));
    if (!row || row.revoked_at) throw unauthorized('this API key has been revoked');
  });

  /**
   * A request to no route still spends its key's allowance and carries the headers, as on any
   * route (CONTRACT §9); over the limit it is 429, like elsewhere. A credential that does not
   * authenticate counts as a failed authentication here too, and an address past the failure
   * limit gets 429 whatever it sends (§9): otherwise a path that is no route would take
   * unlimited guesses, and tell live keys (404 with rate headers) from dead ones (without).
   * Without a credential it is just the 404: nothing was guessed.
   */
  async function countUnrouted(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = req.headers.authorization;
    if (header === undefined) return;
    const address = req.ip;
    const bearer = bearerOf(header);
    const type = bearer === undefined ? null : keyTypeOf(bearer);
    // (a lookup the store could not answer is no failed authentication: it is rethrown)
    const identified =
      bearer === undefined || type === null
        ? undefined
        : await identify(req, type).catch(async (err: unknown) => {
            if (!(err instanceof ApiError)) {
              await refuseBlocked(reply, address);
              throw err;
            }
            return undefined;
          });
    if (identified === undefined) {
      await countFailure(reply, address);
      return;
    }
    const { principal } = identified;
    const window = await spendAllowance(reply, principal.kind === 'admin' ? 'admin' : principal.keyId, address);
    await touchLastUsed(identified);
    enforce(reply, window);
  }

  /** Who the credential is; read only: the key's use is recorded once the request is let through. */
  async function identify(req: FastifyRequest, auth: RouteAuth): Promise<Identified> {
    const header = req.headers.authorization;
    if (!header) throw unauthorized('missing Authorization header: send "Authorization: Bearer <API key>"');
    const bearer = bearerOf(header);
    if (bearer === undefined) throw unauthorized('the Authorization header must be "Bearer <API key>"');
    const type = keyTypeOf(bearer);
    if (!type) throw unauthorized('unsupported API key: team keys start with svc_team_, project keys with svc_proj_');

    if (type !== auth) {
      const message =
        auth === 'admin'
          ? 'this route needs the admin token'
          : type === 'admin'
            ? `the admin token cannot call ${auth} routes; use a ${auth} key`
            : type === 'team'
              ? 'team keys cannot call project routes; use a project key'
              : 'project keys cannot call team routes; use a team key';
      const valid = await validAs(bearer, type);
      throw valid === undefined ? unauthorized(message) : new WrongKeyKind(message, valid);
    }
    if (type === 'admin') {
      if (!secretsEqual(bearer, opts.adminToken)) throw unauthorized('this route needs the admin token');
      return { principal: { kind: 'admin' } };
    }

    const row = await keyRow(bearer);
    if (!row || row.kind !== type) throw unauthorized('invalid API key');
    if (row.revoked_at) throw unauthorized('this API key has been revoked');
    const principal: Principal =
      row.kind === 'team'
        ? { kind: 'team', keyId: row.id, teamId: row.team_id }
        : { kind: 'project', keyId: row.id, teamId: row.team_id, projectId: row.project_id! };
    return { principal, key: row };
  }

  // The lookup is by hash, so the secret itself is never compared byte by byte.
  async function keyRow(bearer: string): Promise<ApiKeyRow | undefined> {
    const hash = hashOf(bearer);
    return opts.store.read(async (tx) => (await tx.list('api_keys', { hash }))[0]);
  }

  /** 'admin' for the admin token, a live key's id for a key of its kind; undefined for anything else. */
  async function validAs(bearer: string, type: KeyType): Promise<string | undefined> {
    if (type === 'admin') return secretsEqual(bearer, opts.adminToken) ? 'admin' : undefined;
    const row = await keyRow(bearer);
    return row !== undefined && row.kind === type && row.revoked_at === null ? row.id : undefined;
  }

  // last_used_at is kept to the minute: writing it on every request would put a store write in
  // front of every read. It is applied before the answer, so a listing made next shows it (on
  // PostgreSQL too); its loss in a crash costs nothing, so it does not wait for the disk.
  async function touchLastUsed({ key }: Identified): Promise<void> {
    if (key === undefined) return;
    const { id: keyId, last_used_at: lastUsed } = key;
    const at = opts.clock();
    if (lastUsed && at.getTime() - Date.parse(lastUsed) < LAST_USED_GRANULARITY_MS) return;
    await opts.store
      .write(
        async (tx) => {
          const row = await tx.get('api_keys', keyId);
          if (row) await tx.update('api_keys', keyId, { last_used_at: at.toISOString() });
        },
        { wait: 'applied' },
      )
      .catch((err) => app.log.warn({ err }, 'could not record key use'));
  }

  return { countUnrouted };
}

const bearerOf = (header: string): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
