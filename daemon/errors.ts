import { ERROR_STATUS, type ErrorCode } from '../shared/errors.js';

/** The one error type routes and services throw; the error handler turns it into the envelope. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    status?: number,
  ) {
    super(message);
    this.status = status ?? ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new ApiError('NOT_FOUND', `${what} not found`);
export const invalid = (message: string) => new ApiError('VALIDATION_ERROR', message);
export const conflict = (message: string) => new ApiError('CONFLICT', message);
