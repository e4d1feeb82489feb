// What every screen can reach: the API, who and where we are, the terminal size, navigation,
// and whether it is the screen on top (only that one reads keys and polls).
import { type Key } from 'ink';
import { createContext, useContext } from 'react';
import { type ScreensApi } from './api.js';
import { type Route } from './routes.js';

export interface Flash {
  kind: 'ok' | 'error' | 'info';
  text: string;
}

export interface Nav {
  push(route: Route): void;
  /** replaces the screen on top (a form by what it created) */
  replace(route: Route): void;
  /** back one screen; nothing on the home screen */
  back(): void;
  quit(): void;
  openHelp(): void;
  /** a note for the next screen on top (e.g. "Deleted X" after leaving a deleted thing's view) */
  flash(message: Flash): void;
}

export type Connection = 'unknown' | 'ok' | 'lost' | 'refused';

/** Keeps a new connection secret for `svc connections test` (where the CLI keeps the profile's key). */
export interface SecretKeeper {
  /** resolves with where it went ("in the keychain"), rejects when it could not be stored */
  save(connectionId: string, secret: string): Promise<string>;
}

export interface AppEnv {
  api: ScreensApi;
  profile: string;
  url: string;
  team: string;
  color: boolean;
  columns: number;
  rows: number;
  /** how often lists refresh */
  refreshMs: number;
  now: () => Date;
  connection: Connection;
  flash: Flash | null;
  /** a note from outside the screens (a rate-limit wait), shown over any message while it lasts */
  notice: string | null;
  nav: Nav;
  /** absent: a new secret is shown, not stored */
  secrets?: SecretKeeper;
}

export const AppContext = createContext<AppEnv | null>(null);

export function useAppEnv(): AppEnv {
  const env = useContext(AppContext);
  if (!env) throw new Error('screens must render inside <App>');
  return env;
}

export interface Place {
  /** which entry of the stack this screen is */
  entry: number;
  /** the screen on top of the stack */
  isTop: boolean;
  helpOpen: boolean;
}

export const PlaceContext = createContext<Place>({ entry: 0, isTop: true, helpOpen: false });

export interface KeyHandler {
  /** the hook that registered it (a screen may swap one component for another) */
  owner: object;
  handler: (input: string, key: Key) => boolean | void;
  typing: boolean | (() => boolean);
}

/**
 * The key handler of each screen on the stack, by entry. The app reads every key with one input
 * hook and hands it to the top screen's handler, registered while rendering: a key that arrives
 * right after a screen change reaches the new screen (Ink's own per-hook subscriptions are made
 * in effects, which can run after such a key).
 */
export const KeysContext = createContext<Map<number, KeyHandler>>(new Map());

export const usePlace = () => useContext(PlaceContext);

/** True when the screen should read keys: on top, and the help is not over it. */
export function useKeysActive(): boolean {
  const p = usePlace();
  return p.isTop && !p.helpOpen;
}

/** Colour names pass through only when colour is on (NO_COLOR, --no-color, no TTY turn it off). */
export function useColor(): (name: string) => string | undefined {
  const { color } = useAppEnv();
  return (name) => (color ? name : undefined);
}

/** Lines left for a screen's body: the header, title, message and key-hint lines take four. */
export function useBodyHeight(): number {
  const { rows } = useAppEnv();
  return Math.max(4, rows - 1 - 4);
}
