// A request that arrives while the daemon stops is answered 503 in the error envelope (Fastify's
// own answer has a body of another shape), on a connection that was busy when the stop began.
import { expect, it } from 'vitest';
import { startTestDaemon } from '../helpers/daemon.js';
import { openRaw } from '../helpers/raw-http.js';

it('answers a request arriving during shutdown with 503 in the envelope, and closes the connection', async () => {
  const d = await startTestDaemon();
  const { socket, pathname, received, closed } = await openRaw(d.url);
  // A request whose body is not all there keeps the connection busy while the stop begins.
  const body = JSON.stringify({ slug: 'late' });
  socket.write(`POST ${pathname}/admin/teams HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${d.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const stopping = d.destroy();
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.write(`${body.slice(5)}GET ${pathname}/health HTTP/1.1\r\nHost: x\r\n\r\n`);
  await closed;
  await stopping;
  const answers = received().split(/(?=HTTP\/1\.1 )/);
  expect(answers[0]).toMatch(/^HTTP\/1\.1 201 /);
  expect(answers[1]).toMatch(/^HTTP\/1\.1 503 /);
  expect(answers[1]).toMatch(/connection: close/i);
  const envelope = JSON.parse(answers[1].slice(answers[1].indexOf('\r\n\r\n') + 4));
  expect(envelope).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'the daemon is shutting down; retry once it is running again' } });
});

it('does not let a connection that sends nothing, or stalls in its headers or body, hold a stop', async () => {
  const d = await startTestDaemon();
  const { pathname } = new URL(d.url);
  const openSocket = async (bytes: string) => {
    const raw = await openRaw(d.url);
    if (bytes) raw.socket.write(bytes);
    return raw;
  };
  const stalled = await Promise.all([
    openSocket(''),
    openSocket(`GET ${pathname}/health HTTP/1.1\r\nHost: x\r\n`),
    openSocket(`POST ${pathname}/admin/teams HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${d.adminToken}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"slug"`),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  // Without the cut, the stop waited for these clients for as long as they liked (minutes).
  await d.destroy();
  await Promise.all(stalled.map((s) => s.closed));
});
