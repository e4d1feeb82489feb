// Whether a Linux keychain (the Secret Service, on the D-Bus session bus) can be reached at all,
// told from the environment alone: where there is no session bus (a server, a container, a CI
// job, a shell whose desktop session has ended), asking the keychain helper would only start a
// process to hear that, on every command that reads or stores a key.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Why no session bus can be reached, or undefined when one may be (and on other systems). Only
 * a sure absence counts: an address of another kind than a Unix socket path (an abstract socket,
 * TCP) is left for the helper to try.
 */
export function missingSessionBus(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux') return undefined;
  const address = env.DBUS_SESSION_BUS_ADDRESS;
  if (address === undefined || address === '') {
    // libdbus then looks for the bus at $XDG_RUNTIME_DIR/bus (and cannot launch one without X11).
    const runtimeDir = env.XDG_RUNTIME_DIR;
    if (runtimeDir && existsSync(join(runtimeDir, 'bus'))) return undefined;
    return 'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)';
  }
  const paths: string[] = [];
  // Alternatives are separated by ';', each `transport:key=value,...` with %-escaped values.
  for (const entry of address.split(';')) {
    if (entry === '') continue;
    const match = /^unix:(?:.*,)?path=([^,]*)/.exec(entry);
    if (!match) return undefined;
    let path: string;
    try {
      path = decodeURIComponent(match[1]);
    } catch {
      return undefined;
    }
    if (existsSync(path)) return undefined;
    paths.push(path);
  }
  if (paths.length === 0) return undefined;
  return `no D-Bus session bus at ${paths.join(' or ')} (DBUS_SESSION_BUS_ADDRESS)`;
}
