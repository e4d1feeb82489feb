// A stopping daemon waits for its connections (server.close() does), and finishes the requests
// it received. A connection that never sends a request (a port scan, a half-open client) or
// stalls in the middle of one is no such request: left alone, it holds the stop for as long as
// the client likes. These are cut once a short grace has passed.
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionWatch {
  /** After `graceMs`, cuts connections with no request under way or one not yet received whole. */
  cutStalledAfter(graceMs: number): () => void;
}

export function watchConnections(server: Server): ConnectionWatch {
  const sockets = new Set<Socket>();
  /** the request each connection is serving, from its headers until its response is done */
  const serving = new Map<Socket, IncomingMessage>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      serving.delete(socket);
    });
  });
  server.on('request', (req: IncomingMessage, res) => {
    serving.set(req.socket, req);
    res.once('close', () => {
      if (serving.get(req.socket) === req) serving.delete(req.socket);
    });
  });
  return {
    cutStalledAfter(graceMs) {
      const timer = setTimeout(() => {
        for (const socket of sockets) {
          const req = serving.get(socket);
          if (!req || !req.complete) socket.destroy();
        }
      }, graceMs);
      timer.unref();
      return () => clearTimeout(timer);
    },
  };
}
