// Who is calling: turns the bearer token into a principal, enforces which kind of key a route
// takes (CONTRACT §2, spec §5), applies the rate limits and sets their headers (CONTRACT §9).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { ApiKeyRow, TeamRow } from '../store/tables.js';
import { hashKey, keyTypeOf, secretsEqual, type KeyType } from './keys.js';
import { afterHit, beforeHit, MemoryRateCounters, type WindowState } from './rate-limit.js';

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
}

const LAST_USED_GRANULARITY_MS = 60_000;
const RATE_WINDOW_MS = 60_000;
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
  // One set of counters for the three limits, their buckets told apart by a prefix; the store's
  // where daemons share it, so each limit holds across them (CONTRACT §11).
  const counterOptions = { windowMs: RATE_WINDOW_MS, now };
  const counters = opts.store.openRateCounters?.(counterOptions) ?? new MemoryRateCounters(counterOptions);
  const failuresOf = (address: string) => `fail:${address}`;
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

    const address = req.ip;
    const blocked = refuseBlocked(address, reply);

    let principal: Principal;
    try {
      principal = await identify(req, auth, blocked);
    } catch (err) {
      await blocked;
      // A valid credential of the wrong kind is refused, but it is no guess at a key: it spends
      // its own allowance instead, so it cannot be sent without limit either. A lookup that failed
      // (the store cannot answer) is no failed authentication: counted, a failed store's 500s would
      // turn into 429s naming failed authentications, for every client behind one address.
      if (err instanceof WrongKeyKind) await spendAllowance(reply, err.limitedAs);
      else if (err instanceof ApiError) await counters.hit(failuresOf(address));
      throw err;
    }
    await blocked;
    req.principal = principal;

    await spendAllowance(reply, principal.kind === 'admin' ? 'admin' : principal.keyId);

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

  /** Counts one request against `limitedAs` (a key's id, or 'admin'), with the headers; 429 once over. */
  async function spendAllowance(reply: FastifyReply, limitedAs: string): Promise<void> {
    const window =
      limitedAs === 'admin' ? afterHit(opts.adminRateLimit, await counters.hit('admin')) : afterHit(opts.rateLimit, await counters.hit(`key:${limitedAs}`));
    setRateHeaders(reply, window);
    if (!window.allowed) throw rateLimited(reply, window, now(), 'rate limit exceeded for this key');
  }

  /**
   * Rejects with the 429 once `address` is at the failure limit. Started before the credential is
   * looked up and awaited before anything comes of it: on a shared store the count is a statement,
   * sent alongside the key's lookup rather than in front of it.
   */
  function refuseBlocked(address: string, reply: FastifyReply): Promise<void> {
    const blocked = counters.peek(failuresOf(address)).then((w) => {
      const failures = beforeHit(opts.authFailureLimit, w);
      if (!failures.allowed) throw rateLimited(reply, failures, now(), 'too many failed authentications from this address');
    });
    // (awaited by every path; this keeps a rejection seen first by the other path from counting as unhandled)
    blocked.catch(() => undefined);
    return blocked;
  }

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
    const blocked = refuseBlocked(address, reply);
    const bearer = bearerOf(header);
    const type = bearer === undefined ? null : keyTypeOf(bearer);
    // (a lookup the store could not answer is no failed authentication: it is rethrown)
    const principal =
      bearer === undefined || type === null
        ? undefined
        : await identify(req, type, blocked).catch(async (err: unknown) => {
            await blocked;
            if (!(err instanceof ApiError)) throw err;
            return undefined;
          });
    await blocked;
    if (principal === undefined) {
      await counters.hit(failuresOf(address));
      return;
    }
    await spendAllowance(reply, principal.kind === 'admin' ? 'admin' : principal.keyId);
  }

  /** The caller's principal; nothing is written (the key's last use) before `cleared` resolves. */
  async function identify(req: FastifyRequest, auth: RouteAuth, cleared: Promise<void>): Promise<Principal> {
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
      return { kind: 'admin' };
    }

    const row = await keyRow(bearer);
    if (!row || row.kind !== type) throw unauthorized('invalid API key');
    if (row.revoked_at) throw unauthorized('this API key has been revoked');
    await cleared;
    await touchLastUsed(row.id, row.last_used_at);
    return row.kind === 'team'
      ? { kind: 'team', keyId: row.id, teamId: row.team_id }
      : { kind: 'project', keyId: row.id, teamId: row.team_id, projectId: row.project_id! };
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
  async function touchLastUsed(keyId: string, lastUsed: string | null): Promise<void> {
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

function setRateHeaders(reply: FastifyReply, w: WindowState): void {
  reply.header('X-RateLimit-Limit', String(w.limit));
  reply.header('X-RateLimit-Remaining', String(w.remaining));
  reply.header('X-RateLimit-Reset', String(w.resetAt));
}

function rateLimited(reply: FastifyReply, w: WindowState, nowMs: number, message: string): ApiError {
  const retryAfter = Math.max(1, w.resetAt - Math.floor(nowMs / 1000));
  reply.header('Retry-After', String(retryAfter));
  return new ApiError('RATE_LIMITED', `${message}; retry after ${retryAfter}s`);
}
