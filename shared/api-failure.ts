// Errors the API client throws. Kept apart from client.ts so code that only needs to recognise
// them (the CLI's exit-code table) does not load the HTTP client.

/** The daemon answered with an error envelope (or a non-2xx status without one). */
export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';
  /** a 429 that came after the client had already waited out one window (--wait) */
  waitedForRateLimit = false;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** whether the request carried a key (a 401 to one sent without, on purpose, needs no login hint) */
    readonly keySent = true,
    /**
     * where the key came from, for a 401's hint: the environment variable that held it, null
     * for a stored key (the keychain or the credentials file), undefined when not known
     */
    readonly keyFrom?: string | null,
    /** the request's path below the base URL, when the client made it */
    readonly path?: string,
  ) {
    super(message);
  }
}

/**
 * No answer from the API: connection refused, reset, DNS failure, timeout, or a 2xx answer
 * without the API's envelope (another server at that URL).
 */
export class ConnectionFailure extends Error {
  override readonly name = 'ConnectionFailure';
  constructor(
    /** origin only: a path could carry a team slug, never a key, but keep messages short */
    readonly origin: string,
    readonly reason: string,
    /** false when trying again cannot help (the daemon took the request and never answered) */
    readonly retryable = true,
  ) {
    super(`cannot reach ${origin}: ${reason}`);
  }
}
