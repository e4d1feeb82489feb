// Every non-2xx answer is the spec's envelope `{"error":{"code","message"}}`; 5xx internals are
// logged with the request id and never sent.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from '../../shared/errors.js';
import { ApiError } from '../errors.js';
import { maskKeys } from '../mask-keys.js';
import { NOT_JSON_MESSAGE } from './json-body.js';
import { StoreUnavailableError, UniqueViolation, UnstorableValueError } from '../store/store.js';

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Longest path parameter routed (Fastify's default, 100, cut off valid env var names of 128). */
export const MAX_PARAM_LENGTH = 1000;

/**
 * Fastify's `frameworkErrors`: a URL that cannot be decoded or a path parameter over
 * MAX_PARAM_LENGTH is answered before routing, so neither the error handler nor the hooks run.
 * The key it carries is still charged, as on any answer (`charge`: a 429 once over its limit).
 */
export async function answerFrameworkError(
  err: FastifyError,
  req: FastifyRequest,
  reply: FastifyReply,
  charge: (req: FastifyRequest, reply: FastifyReply) => Promise<void>,
): Promise<void> {
  let answer = toEnvelope(err);
  try {
    await charge(req, reply);
  } catch (refusal) {
    // Over the limit: the 429. Anything else (the store failing) is not this answer's business.
    if (refusal instanceof ApiError) answer = toEnvelope(refusal);
  }
  const { status, code, message } = answer;
  reply.header('X-Request-Id', req.id).status(status).send({ error: { code, message } });
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (a malformed request line
 * or header, bad chunked framing, both Content-Length and Transfer-Encoding, headers and URL over
 * 16 KiB, a request not received in time) never reaches routing. Fastify's default answers it in
 * its own `{"error","message","statusCode"}` shape; this one keeps the envelope. The socket is
 * closed after the answer, since the parser cannot find where the next request would start.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = 'the request is not valid HTTP/1.1 (request line, headers or body framing)';
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message = 'the request line and headers are larger than 16 KiB (a very long URL or query string?)';
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'the request was not received in full in time';
  }
  const body = validationEnvelope(message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * The server's `checkExpectation` listener: Node answers `Expect: 100-continue` itself, and any
 * other expectation with a bare 417; this one is in the envelope.
 */
export function answerUnmetExpectation(_req: IncomingMessage, res: ServerResponse): void {
  const body = validationEnvelope('the Expect header supports only 100-continue');
  res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
}

/**
 * CONNECT (a proxy tunnel request) never reaches Fastify: Node hands it over as a raw socket, and
 * drops it unanswered when nobody listens. It gets the unknown-route answer, in the envelope.
 */
export function answerConnect(req: IncomingMessage, socket: Duplex): void {
  const body = JSON.stringify({ error: { code: 'NOT_FOUND', message: maskKeys(`no route CONNECT ${req.url ?? ''}`) } });
  socket.on('error', () => undefined);
  socket.end(`HTTP/1.1 404 Not Found\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/** The envelope of an answer given outside Fastify's reply (no request was routed). */
const validationEnvelope = (message: string) => JSON.stringify({ error: { code: 'VALIDATION_ERROR', message } });

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    const { status, code, message } = toEnvelope(err, req.routeOptions.bodyLimit);
    // A 502 the API defines (a runner or GitHub refusing) is an answer, not a fault of ours:
    // one line saying what was refused, without a stack.
    if (status === 502 && err instanceof ApiError) req.log.warn({ code, reason: message }, 'request refused upstream');
    // The store logs the database going away once; each request it refuses meanwhile is a line, not a stack.
    else if (err instanceof StoreUnavailableError) req.log.warn({ code, reason: message }, 'request refused: the store is unavailable');
    else if (status >= 500) req.log.error({ err }, 'request failed');
    reply.status(status).send({ error: { code, message } });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ error: { code: 'NOT_FOUND', message: maskKeys(`no route ${req.method} ${req.url.split('?')[0]}`) } });
  });
}

/** The envelope of `err`; a key the request carried somewhere odd is not quoted back. */
function toEnvelope(err: FastifyError | ApiError, bodyLimit?: number): { status: number; code: ErrorCode; message: string } {
  const envelope = envelopeOf(err, bodyLimit);
  return { ...envelope, message: maskKeys(envelope.message) };
}

function envelopeOf(err: FastifyError | ApiError, bodyLimit = 1024 * 1024): { status: number; code: ErrorCode; message: string } {
  if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
  // The store's own refusals: a unique value taken meanwhile, a database gone for now, a value it cannot hold.
  if (err instanceof UniqueViolation) return { status: 409, code: 'CONFLICT', message: err.message };
  if (err instanceof StoreUnavailableError) return { status: 503, code: 'INTERNAL_ERROR', message: err.message };
  if (err instanceof UnstorableValueError) return { status: 400, code: 'VALIDATION_ERROR', message: err.message };
  const fe = err as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (fe.validation) return { status: 400, code: 'VALIDATION_ERROR', message: describeValidation(fe.validation, fe.validationContext) };
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 400, code: 'VALIDATION_ERROR', message: NOT_JSON_MESSAGE };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: 'VALIDATION_ERROR', message: 'Content-Length does not match the body' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'VALIDATION_ERROR', message: 'request body is empty; send a JSON object' };
    case 'FST_ERR_BAD_URL':
      return { status: 400, code: 'VALIDATION_ERROR', message: 'the URL path is not valid (a bad percent-encoding?)' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 400, code: 'VALIDATION_ERROR', message: `a path segment is longer than ${MAX_PARAM_LENGTH} characters` };
  }
  if (err instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return { status: 400, code: 'VALIDATION_ERROR', message: 'request body is not valid JSON' };
  }
  const status = fe.statusCode ?? 500;
  if (status === 404) return { status, code: 'NOT_FOUND', message: 'not found' };
  if (status === 413) return tooLarge(bodyLimit);
  if (status === 429) return { status, code: 'RATE_LIMITED', message: 'rate limit exceeded' };
  if (status >= 400 && status < 500) return { status: 400, code: 'VALIDATION_ERROR', message: fe.message };
  return { status: 500, code: 'INTERNAL_ERROR', message: 'internal error; the daemon log has the details under this request id' };
}

/** The 413 of a route whose bodies may be `limit` bytes at most (1 MiB, or 5 MiB for provider deliveries). */
const tooLarge = (limit: number) => ({ status: 413, code: 'PAYLOAD_TOO_LARGE' as const, message: `request body is larger than ${limit / (1024 * 1024)} MiB` });

/** "body.triggers[0].cron_expression must be string" rather than Ajv's JSON pointers. */
function describeValidation(issues: ValidationIssue[], context = 'body'): string {
  const first = issues[0] ?? {};
  const pointer = (first.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('');
  const params = first.params ?? {};
  let field = `${context}${pointer}`;
  let message = first.message ?? 'is invalid';
  if (typeof params.additionalProperty === 'string') {
    field = `${field}.${params.additionalProperty}`;
    message = 'is not an allowed property';
  } else if (typeof params.missingProperty === 'string') {
    field = `${field}.${params.missingProperty}`;
    message = 'is required';
  } else if (params.format === 'date-time') {
    // The commonest miss is a local time: say what the format wants, with an example.
    message = 'must be a date-time with seconds and an offset or Z (RFC 3339), e.g. 2027-01-15T10:00:00Z or 2027-01-15T10:00:00-05:00';
  } else if (typeof params.format === 'string') {
    message = `must be a valid ${params.format}`;
  } else if (Array.isArray(params.allowedValues)) {
    // An enum (a status, a type): name the values rather than "equal to one of the allowed values".
    message = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${field} ${message}`;
}

export { ERROR_STATUS };
