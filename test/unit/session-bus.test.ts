// When the keychain helper need not be started: a Linux environment with no D-Bus session bus
// to reach, told from its variables and the sockets they name.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingSessionBus } from '../../cli/credentials/session-bus.js';

let dir: string;
let socket: string;
let server: Server;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-bus-'));
  socket = join(dir, 'bus');
  server = createServer();
  await new Promise<void>((r) => server.listen(socket, r));
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('missingSessionBus', () => {
  it('finds a bus at a socket path that exists, alone, among others, with a guid or %-escaped', () => {
    expect(missingSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}` }, 'linux')).toBeUndefined();
    expect(missingSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket},guid=0123abcd` }, 'linux')).toBeUndefined();
    expect(missingSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'gone')};unix:path=${socket}` }, 'linux')).toBeUndefined();
    expect(missingSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket.replace('bus', '%62us')}` }, 'linux')).toBeUndefined();
  });

  it('says no bus answers when every path named is missing', () => {
    const gone = join(dir, 'gone');
    expect(missingSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${gone}` }, 'linux')).toBe(`no D-Bus session bus at ${gone} (DBUS_SESSION_BUS_ADDRESS)`);
    expect(missingSessionBus({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${gone};unix:path=${gone}2` }, 'linux')).toContain(`${gone} or ${gone}2`);
  });

  it('leaves addresses it cannot check (abstract sockets, TCP, runtime) to the keychain helper', () => {
    for (const address of ['unix:abstract=/tmp/dbus-x,guid=1', 'tcp:host=localhost,port=4000', 'unix:runtime=yes', `unix:path=${join(dir, 'gone')};tcp:host=h,port=1`, 'unix:path=%zz']) {
      expect(missingSessionBus({ DBUS_SESSION_BUS_ADDRESS: address }, 'linux'), address).toBeUndefined();
    }
  });

  it('without the variable, looks where libdbus does: $XDG_RUNTIME_DIR/bus', () => {
    expect(missingSessionBus({ XDG_RUNTIME_DIR: dir }, 'linux')).toBeUndefined();
    expect(missingSessionBus({ XDG_RUNTIME_DIR: join(dir, 'nowhere') }, 'linux')).toBe('no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)');
    expect(missingSessionBus({}, 'linux')).toBe('no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)');
  });

  it('judges nothing on other systems, whose keychains are not on D-Bus', () => {
    expect(missingSessionBus({}, 'darwin')).toBeUndefined();
    expect(missingSessionBus({}, 'win32')).toBeUndefined();
  });
});
