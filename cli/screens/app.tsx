// The screens as one Ink application: a stack of routes (esc pops, enter pushes), the help
// overlay, and the connection state every screen shows in its header. `renderApp` is the only
// entry; `svc ui` and bare `svc` on a terminal import this file, nothing else does.
import { constants } from 'node:os';
import { Box, type Key, render, type RenderOptions, useApp, useInput, useStdout } from 'ink';
import { useEffect, useMemo, useRef, useState } from 'react';
import { type ApiClient } from '../../shared/client.js';
import { createScreensApi } from './api.js';
import { AutomationDetailScreen } from './automations/detail.js';
import { AutomationFormScreen } from './automations/form.js';
import { AutomationsScreen } from './automations/list.js';
import { AppContext, type AppEnv, type Connection, type Flash, KeysContext, type KeyHandler, type Nav, PlaceContext, type SecretKeeper } from './context.js';
import { ConnectionDetailScreen } from './connections/detail.js';
import { ConnectionFormScreen } from './connections/form.js';
import { ConnectionsScreen } from './connections/list.js';
import { EnvVarFormScreen } from './env-vars/form.js';
import { EnvVarsScreen } from './env-vars/list.js';
import { EventComposerScreen } from './events/composer.js';
import { EventDetailScreen } from './events/detail.js';
import { EventsScreen } from './events/list.js';
import { HomeScreen } from './home.js';
import { RECONNECT_MS, useRefState, useTerminalSize } from './hooks.js';
import { splitKeys } from './keys.js';
import { type AreaName, type Route } from './routes.js';
import { SessionsScreen } from './sessions/list.js';
import { TranscriptScreen } from './sessions/transcript.js';
import { SkillsScreen } from './skills.js';
import { Text } from './text.js';

export interface AppProps {
  client: ApiClient;
  team: string;
  profile: string;
  /** the daemon URL as shown in the header */
  url: string;
  color: boolean;
  /** open this area (with home under it, so esc goes home) */
  area?: AreaName;
  /** fixed terminal size (tests); by default the terminal's, following resizes */
  size?: { columns: number; rows: number };
  /** how often lists refresh (default 5 s) */
  refreshMs?: number;
  now?: () => Date;
  /** told when the person quits */
  onExit?: () => void;
  /** notes from outside the screens (the client waiting out a rate limit), shown on the message line */
  notices?: { subscribe(listener: (text: string, forMs?: number) => void): () => void };
  /** where a new connection's secret is kept for `svc connections test` (svc ui: the profile's keychain or file) */
  secrets?: SecretKeeper;
}

interface Entry {
  key: number;
  route: Route;
}

function ScreenFor({ route }: { route: Route }) {
  switch (route.name) {
    case 'home':
      return <HomeScreen />;
    case 'automations':
      return <AutomationsScreen />;
    case 'automation':
      return <AutomationDetailScreen id={route.id} />;
    case 'automation-new':
      return <AutomationFormScreen />;
    case 'events':
      return <EventsScreen />;
    case 'event':
      return <EventDetailScreen event={route.event} />;
    case 'event-new':
      return <EventComposerScreen />;
    case 'skills':
      return <SkillsScreen />;
    case 'env-vars':
      return <EnvVarsScreen />;
    case 'env-var-set':
      return <EnvVarFormScreen varName={route.varName} environmentId={route.environmentId} isSecret={route.isSecret} />;
    case 'sessions':
      return <SessionsScreen />;
    case 'session':
      return <TranscriptScreen id={route.id} />;
    case 'connections':
      return <ConnectionsScreen />;
    case 'connection':
      return <ConnectionDetailScreen connection={route.connection} />;
    case 'connection-new':
      return <ConnectionFormScreen />;
  }
}

export function App(props: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const size = useTerminalSize(stdout, props.size);
  const [connection, setConnection] = useState<Connection>('unknown');
  const [flash, setFlash] = useState<Flash | null>(null);
  const [helpOpen, setHelpOpen, getHelpOpen] = useRefState(false);
  const nextKey = useRef(2);
  const [stack, setStack, getStack] = useRefState<Entry[]>(() =>
    props.area ? [{ key: 0, route: { name: 'home' } }, { key: 1, route: { name: props.area } as Route }] : [{ key: 0, route: { name: 'home' } }],
  );

  const api = useMemo(
    () =>
      createScreensApi(props.client, props.team, {
        // /health answering says nothing of the key: a refused key stays refused until a keyed request succeeds.
        onConnection: (report, keyed) => setConnection((was) => (report === 'ok' && !keyed && was === 'refused' ? was : report)),
      }),
    [props.client, props.team],
  );

  // A notice (the client waiting out a rate limit) shows over the screen's own message, which
  // may be a "Creating…" that would otherwise sit there for the whole wait; it goes when the wait ends.
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    const timers = new Set<NodeJS.Timeout>();
    const unsubscribe = props.notices?.subscribe((text, forMs) => {
      setNotice(text);
      if (forMs === undefined) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        setNotice((shown) => (shown === text ? null : shown));
      }, forMs);
      timers.add(timer);
    });
    return () => {
      unsubscribe?.();
      for (const t of timers) clearTimeout(t);
    };
  }, [props.notices]);

  // Say at once whether the daemon answers, whatever the first screen asks of it.
  useEffect(() => {
    void api.health().catch(() => undefined);
  }, [api]);

  // While the daemon is unreachable, keep knocking so the header recovers even on a screen that
  // is not polling anything.
  useEffect(() => {
    if (connection !== 'lost') return;
    const timer = setInterval(() => void api.health().catch(() => undefined), RECONNECT_MS);
    return () => clearInterval(timer);
  }, [connection, api]);

  const nav = useMemo<Nav>(
    () => ({
      push: (route) => {
        setFlash(null);
        setStack((s) => [...s, { key: nextKey.current++, route }]);
      },
      replace: (route) => {
        setFlash(null);
        setStack((s) => [...s.slice(0, -1), { key: nextKey.current++, route }]);
      },
      back: () => {
        setFlash(null);
        setStack((s) => (s.length > 1 ? s.slice(0, -1) : s));
      },
      quit: () => {
        props.onExit?.();
        exit();
      },
      openHelp: () => setHelpOpen(true),
      flash: setFlash,
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [exit],
  );

  // One input hook for the whole app, active from start to end: the top screen's handler is
  // looked up per key (see KeysContext), and raw mode never flickers off between screens.
  const [registry] = useState(() => new Map<number, KeyHandler>());
  const dispatch = (input: string, key: Key) => {
    // Too small a terminal shows only how to go on: no screen may act on a key it cannot show.
    if (tooSmallRef.current) {
      if (input === 'q') nav.quit();
      return;
    }
    if (getHelpOpen()) {
      setHelpOpen(false);
      return;
    }
    const top = getStack().at(-1);
    const screen = top ? registry.get(top.key) : undefined;
    const typing = () => (typeof screen?.typing === 'function' ? screen.typing() : (screen?.typing ?? false));
    // "jjj" from a held key reaches a list as one input: away from a text field, one key per letter.
    if (input.length > 1 && !typing()) {
      queue.current.unshift(...[...input.slice(1)].map((c): [string, Key] => [c, key]));
      input = input[0];
    }
    if (screen?.handler(input, key) === true) return;
    if (key.escape) nav.back();
    else if (typing()) return;
    else if (input === 'q') nav.quit();
    else if (input === '?') nav.openHelp();
  };
  // Keys are handled one per turn of the event loop, each after the render of the one before, so
  // every handler sees the state its key left behind (a chunk of keys arrives in one callback,
  // where React would batch all their updates into one render).
  const queue = useRef<[string, Key][]>([]);
  const draining = useRef(false);
  const dispatchRef = useRef(dispatch);
  dispatchRef.current = dispatch;
  useEffect(() => () => void (queue.current = []), []);
  useInput((input, key) => {
    queue.current.push(...splitKeys(input, key));
    if (draining.current) return;
    draining.current = true;
    const drain = () => {
      const next = queue.current.shift();
      if (!next) {
        draining.current = false;
        return;
      }
      dispatchRef.current(...next);
      // time for the key's render, so the next key finds the screen it left
      setTimeout(drain, 10);
    };
    drain();
  });

  const tooSmall = size.columns < MIN_COLUMNS || size.rows < MIN_ROWS;
  const tooSmallRef = useRef(tooSmall);
  tooSmallRef.current = tooSmall;

  const env: AppEnv = {
    api,
    profile: props.profile,
    url: props.url,
    team: props.team,
    color: props.color,
    columns: size.columns,
    rows: size.rows,
    refreshMs: props.refreshMs ?? 5000,
    now: props.now ?? (() => new Date()),
    connection,
    flash,
    notice,
    nav,
    secrets: props.secrets,
  };

  // Screens under the top one stay mounted (hidden) so going back finds the cursor and form
  // where they were; they neither poll nor read keys.
  return (
    <AppContext.Provider value={env}>
      <KeysContext.Provider value={registry}>
      {tooSmall && (
        <Text wrap="wrap">
          {`The terminal is ${size.columns}x${size.rows}; the screens need at least ${MIN_COLUMNS}x${MIN_ROWS}. Make it larger (they come back where you were), or press q to quit.`}
        </Text>
      )}
      {stack.map((entry, i) => {
        const isTop = i === stack.length - 1;
        return (
          <Box key={entry.key} display={isTop && !tooSmall ? 'flex' : 'none'} flexDirection="column">
            <PlaceContext.Provider value={{ entry: entry.key, isTop, helpOpen }}>
              <ScreenFor route={entry.route} />
            </PlaceContext.Provider>
          </Box>
        );
      })}
      </KeysContext.Provider>
    </AppContext.Provider>
  );
}

// Full-screen like k9s or lazygit: the terminal's own contents come back on exit.
/**
 * The smallest terminal the screens lay out in: below it forms overlap their own lines and the
 * help overlay loses its last keys, so a note says to make the terminal larger instead.
 */
export const MIN_COLUMNS = 60;
export const MIN_ROWS = 20;

const ENTER_ALT_SCREEN = '\u001b[?1049h';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';

export interface RenderAppOptions extends Omit<AppProps, 'onExit' | 'size'> {
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  stderr?: NodeJS.WriteStream;
}

/** Opens the screens and resolves when the person quits (q or ctrl+c). */
export async function renderApp(options: RenderAppOptions): Promise<void> {
  const { stdout = process.stdout, stdin = process.stdin, stderr = process.stderr, ...props } = options;
  const inkOptions: RenderOptions = { stdout, stdin, stderr, exitOnCtrlC: true, patchConsole: true };
  stdout.write(ENTER_ALT_SCREEN);
  const instance = render(<App {...props} />, inkOptions);
  // Killed from outside (kill, a closed terminal): give the terminal back as q does, then exit
  // with the usual 128+N status of that signal (at once: the quit path would exit 0).
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    for (const s of EXIT_SIGNALS) process.off(s, onSignal);
    instance.cleanup();
    stdout.write(LEAVE_ALT_SCREEN);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    // (unmounting has Ink leave raw mode and show the cursor again)
    instance.unmount();
    restore();
    stdout.write(SHOW_CURSOR);
    process.exit(128 + constants.signals[signal]);
  };
  for (const s of EXIT_SIGNALS) process.once(s, onSignal);
  try {
    await instance.waitUntilExit();
  } finally {
    restore();
  }
}

const EXIT_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
const SHOW_CURSOR = '\u001b[?25h';
