// A raw TCP connection to a test daemon, for requests fetch cannot make: a body sent in parts,
// a stalled header, bytes written while the daemon stops.
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** the API base path, e.g. /api/v1 */
  pathname: string;
  /** everything the daemon wrote so far */
  received(): string;
  /** resolves when the connection is closed, by either side */
  closed: Promise<void>;
}

export async function openRaw(baseUrl: string): Promise<RawConnection> {
  const { hostname, port, pathname } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('utf8')));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, pathname, received: () => received, closed };
}
