// Renders the screens with ink-testing-library against a real daemon: a real API client, keys
// written to stdin, frames read back. Waits poll the frame until a deadline, never sleep.
import { render } from 'ink-testing-library';
import stringWidth from 'string-width';
import { createClient } from '../../../shared/client.js';
import { App, type AppProps } from '../../../cli/screens/app.js';
import type { DaemonOptions } from '../../../daemon/config.js';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../../helpers/daemon.js';

export const KEY = {
  enter: '\r',
  esc: '\u001b',
  tab: '\t',
  shiftTab: '\u001b[Z',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  backspace: '\u007f',
  ctrlR: '\u0012',
  ctrlS: '\u0013',
} as const;

export const WIDTH = 80;
export const HEIGHT = 24;

export interface Screens {
  frame(): string;
  /** every frame drawn so far */
  frames(): string[];
  /** resolves with the frame once it contains `what` (or `what(frame)` is true) */
  waitFor(what: string | RegExp | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  /** one key at a time, each given a moment to land, as a person types */
  press(...keys: string[]): Promise<void>;
  /** text as one chunk, as a paste or fast typing arrives */
  type(text: string): Promise<void>;
  /** moves the selection down with j, one drawn step at a time, to the first row matching */
  select(row: RegExp): Promise<void>;
  exited(): boolean;
  unmount(): void;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 15));

export function renderScreens(props: Omit<AppProps, 'onExit'>): Screens {
  let exited = false;
  const instance = render(<App {...props} onExit={() => (exited = true)} />);
  const frame = () => instance.lastFrame() ?? '';
  return {
    frame,
    frames: () => instance.frames,
    async waitFor(what, timeoutMs = 10_000) {
      const test = typeof what === 'function' ? what : (f: string) => (typeof what === 'string' ? f.includes(what) : what.test(f));
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const f = frame();
        if (test(f)) return f;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(what)}; the screen shows:\n${f}`);
        await tick();
      }
    },
    async press(...keys) {
      for (const k of keys) {
        instance.stdin.write(k);
        await tick();
      }
    },
    async type(text) {
      instance.stdin.write(text);
      await tick();
    },
    async select(row) {
      const selected = () => frame().split('\n').find((l) => l.startsWith('›')) ?? '';
      for (let i = 0; i < 100 && !row.test(selected()); i++) {
        const before = selected();
        instance.stdin.write('j');
        try {
          await this.waitFor(() => selected() !== before, 5000);
        } catch {
          throw new Error(`no row matching ${row} to select; the screen shows:\n${frame()}`);
        }
      }
    },
    exited: () => exited,
    unmount: () => instance.unmount(),
  };
}

export interface Harness {
  daemon: TestDaemon;
  key: string;
  api: Requester;
  open(options?: Partial<Omit<AppProps, 'client' | 'team'>>): Screens;
  close(): Promise<void>;
}

/** A daemon with team `acme`, and a way to open the screens on it. */
export async function startHarness(daemonOptions: Partial<DaemonOptions> = {}): Promise<Harness> {
  const daemon = await startTestDaemon(daemonOptions);
  const { key, api } = await createTeam(daemon, 'acme');
  const opened: Screens[] = [];
  return {
    daemon,
    key,
    api,
    open(options = {}) {
      const client = createClient({ baseUrl: daemon.url, token: key, backoffMs: 20 });
      const screens = renderScreens({
        client,
        team: 'acme',
        profile: 'test',
        url: client.baseUrl,
        color: false,
        size: { columns: WIDTH, rows: HEIGHT },
        refreshMs: 300,
        ...options,
      });
      opened.push(screens);
      return screens;
    },
    async close() {
      for (const s of opened) s.unmount();
      await daemon.destroy();
    },
  };
}

/** Every line of every frame fits a WIDTH (or `columns`) x HEIGHT terminal (Ink keeps one line spare), in columns. */
export function fitsTerminal(frame: string, columns = WIDTH): boolean {
  const lines = frame.split('\n');
  return lines.length <= HEIGHT - 1 && lines.every((l) => stringWidth(l) <= columns);
}

export async function createAutomation(api: Requester, body: Record<string, unknown>) {
  const res = await api('POST', '/teams/acme/automations', body);
  if (res.status !== 201) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; name: string };
}
