// The CLI's error classes. Commands throw these; bin/svc.js turns them into an exit code through
// the one table in exit-codes.ts.
export { ApiFailure, ConnectionFailure } from '../shared/api-failure.js';

/** Bad flags, arguments or combinations; also a prompt that cannot be shown (no TTY). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    /** true when commander already printed the message */
    readonly reported = false,
  ) {
    super(message);
  }
}

/**
 * A value the daemon would refuse with 400 (a cron, a zone, a time, a filter, a payload that is
 * not a JSON object, an empty text), found before anything is sent. Exits 5, as that 400 would
 * (CONTRACT §10): how a command is called is a usage error, what it would send is validation.
 */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError';
}

/**
 * The command refused to act on what it found, and changed nothing: a copy into a store that is
 * not empty, or from or into a folder a running daemon uses. Exits 5, as a 409 would.
 */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';
}

/** No key (or no URL) for the command: nothing was sent. Exits like a 401. */
export class AuthRequiredError extends Error {
  override readonly name = 'AuthRequiredError';
}

/** The user said no, or pressed Ctrl-C at a prompt. */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  constructor(message = 'cancelled') {
    super(message);
  }
}

/** `svc events send --require-dispatch` when no automation was dispatched. */
export class NothingDispatchedError extends Error {
  override readonly name = 'NothingDispatchedError';
  constructor(message = 'no automation was dispatched') {
    super(message);
  }
}

/** `svc sessions watch` saw the session end `failed` or `cancelled`: the work did not succeed. */
export class SessionEndedError extends Error {
  override readonly name = 'SessionEndedError';
  constructor(
    message: string,
    readonly status: 'failed' | 'cancelled',
  ) {
    super(message);
  }
}

/**
 * The daemon answered a provider delivery (`svc connections test`) with an error: a signature it
 * refused (401), no such connection (404), a body it would not take (400, 413). Exits as that
 * status would for any API request; the message says what to check, never a login hint (the
 * delivery carries no key).
 */
export class DeliveryRefusedError extends Error {
  override readonly name = 'DeliveryRefusedError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
