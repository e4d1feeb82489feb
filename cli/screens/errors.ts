// How a failure reads inside a screen: one line with the daemon's code and message. Never a
// stack: the screens stay up whatever a request does.
import { ApiFailure, ConnectionFailure } from '../../shared/api-failure.js';

export interface ScreenError {
  text: string;
  /** no answer from the daemon at all: the screens say so and retry */
  connection: boolean;
  status?: number;
}

export function describeError(err: unknown): ScreenError {
  if (err instanceof ApiFailure) {
    let text = `${err.code}: ${err.message}`;
    if (err.status === 401) text += ' (run `svc login` to store a working key)';
    return { text, connection: false, status: err.status };
  }
  if (err instanceof ConnectionFailure) return { text: `Connection lost: ${err.message}`, connection: true };
  const message = err instanceof Error ? err.message : String(err);
  return { text: message.split('\n')[0] || 'unexpected error', connection: false };
}
