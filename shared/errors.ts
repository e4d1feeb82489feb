// The error codes of the API (spec §7 plus CONTRACT additions) and the HTTP status of each.
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  EXECUTION_DENIED: 402,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SESSION_START_FAILED: 502,
  SESSION_PUBLISH_FAILED: 502,
  MESSAGE_PUBLISH_FAILED: 502,
  SKILL_SOURCE_UNAVAILABLE: 502,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorEnvelope {
  error: { code: string; message: string };
}
