// A runner webhook for tests with daemon processes, and polling for what they come to.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A runner webhook that holds every turn it is sent (no answer) until told to answer; then it
 * answers held and later turns with a message, which completes them. Counts turns per session.
 */
export async function webhookRuntime() {
  const turns = new Map<string, number>();
  const held: ServerResponse[] = [];
  let answering = false;
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'answered' }));
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { session: { session_id: string } }).session.session_id;
      turns.set(id, (turns.get(id) ?? 0) + 1);
      if (answering) answer(res);
      else held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/turns`;
  return {
    args: ['--runner', 'webhook', '--runner-url', url],
    turnsOf: (id: string) => turns.get(id) ?? 0,
    sessionIds: () => [...turns.keys()],
    answer() {
      answering = true;
      for (const res of held.splice(0)) if (!res.destroyed) answer(res);
    },
    /** holds the turns sent from now on again, until answer() */
    hold() {
      answering = false;
    },
    close: () => {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` until `done` holds of what it returns (or the time is up), and returns that. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < end) {
    await sleep(100);
    value = await read();
  }
  return value;
}
