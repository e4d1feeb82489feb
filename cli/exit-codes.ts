// The one table from error to exit code (CONTRACT §10). Only bin/svc.js applies it.
import {
  ApiFailure,
  AuthRequiredError,
  CancelledError,
  ConflictError,
  ConnectionFailure,
  DeliveryRefusedError,
  InvalidInputError,
  NothingDispatchedError,
  SessionEndedError,
  UsageError,
} from './errors.js';

export const EXIT = {
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  CONFLICT: 5,
  RATE_LIMITED: 6,
  SERVER: 7,
  EXECUTION_DENIED: 8,
  NOTHING_DISPATCHED: 9,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** HTTP status of an API failure to exit code; anything not listed is "unexpected". */
const STATUS_EXIT: Record<number, ExitCode> = {
  400: EXIT.CONFLICT,
  401: EXIT.AUTH,
  402: EXIT.EXECUTION_DENIED,
  404: EXIT.NOT_FOUND,
  409: EXIT.CONFLICT,
  413: EXIT.CONFLICT,
  429: EXIT.RATE_LIMITED,
};

export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof UsageError) return EXIT.USAGE;
  if (err instanceof InvalidInputError) return EXIT.CONFLICT;
  if (err instanceof ConflictError) return EXIT.CONFLICT;
  // Cancelling at a prompt is the user's choice, but the requested action did not happen:
  // scripts must not read it as success. gh exits 2 here too.
  if (err instanceof CancelledError) return EXIT.USAGE;
  if (err instanceof AuthRequiredError) return EXIT.AUTH;
  if (err instanceof NothingDispatchedError) return EXIT.NOTHING_DISPATCHED;
  // An unreachable daemon is a server-side failure for a script's purposes, not a CLI bug.
  if (err instanceof ConnectionFailure) return EXIT.SERVER;
  // A session that failed is a failure of the work the daemon ran, like a 5xx for a script.
  if (err instanceof SessionEndedError) return EXIT.SERVER;
  if (err instanceof ApiFailure || err instanceof DeliveryRefusedError) {
    if (err.status >= 500) return EXIT.SERVER;
    return STATUS_EXIT[err.status] ?? EXIT.UNEXPECTED;
  }
  return EXIT.UNEXPECTED;
}
