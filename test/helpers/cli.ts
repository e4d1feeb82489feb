// Runs the real bin/svc.js as a child process, as a user or a script would, inside a sandbox:
// a temporary HOME with its own config and data folders, no SVC_* variables from the outside,
// and (unless asked) no reachable keychain, so tests never touch the developer's real keychain
// and keys land in the sandbox's 0600 credentials file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { dropTestStores } from './test-store.js';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const SVC_BIN = join(REPO_ROOT, 'bin', 'svc.js');

export interface SandboxOptions {
  /**
   * 'none' (default): DBUS_SESSION_BUS_ADDRESS points at a socket that does not exist, so the
   * keychain is unreachable and the CLI falls back to its file.
   * 'system': the keychain of the test run's session (the Secret Service under .ci/run).
   */
  keychain?: 'none' | 'system';
  /** extra variables for every run in this sandbox */
  env?: Record<string, string | undefined>;
}

export interface CliSandbox {
  /** temporary HOME */
  home: string;
  /** the CLI's config folder: $XDG_CONFIG_HOME/svc (config.json, credentials.json) */
  configDir: string;
  /** $XDG_DATA_HOME/svc: the default data folder of `svc daemon start` */
  dataDir: string;
  /** the environment children get (before per-run additions) */
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

export interface RunOptions {
  /** written to stdin, then stdin is closed (stdin is always closed, so nothing waits on it) */
  input?: string;
  /** per-run variables; undefined removes one */
  env?: Record<string, string | undefined>;
  /** kill the child after this long (default 20 s) */
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws with the output shown when it is not) */
  json<T = any>(): T;
}

export async function makeSandbox(options: SandboxOptions = {}): Promise<CliSandbox> {
  const home = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('SVC_') && k !== 'NO_COLOR' && k !== 'FORCE_COLOR') env[k] = v;
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
  });
  if ((options.keychain ?? 'none') === 'none') env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(home, 'no-dbus-here')}`;
  applyEnv(env, options.env);
  return {
    home,
    configDir: join(home, 'config', 'svc'),
    dataDir: join(home, 'data', 'svc'),
    env,
    async cleanup() {
      // The databases of daemons started on folders in the sandbox (testStoreArgs), if any.
      await dropTestStores(home);
      await rm(home, { recursive: true, force: true });
    },
  };
}

function applyEnv(target: NodeJS.ProcessEnv, extra: Record<string, string | undefined> | undefined) {
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete target[k];
    else target[k] = v;
  }
}

function childEnv(sandbox: CliSandbox, extra?: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env = { ...sandbox.env };
  applyEnv(env, extra);
  return env;
}

function parseJson(stdout: string, stderr: string) {
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`stdout is not JSON.\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`);
  }
}

/** Runs `svc ...args` to completion. */
export function runSvc(sandbox: CliSandbox, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], {
      cwd: sandbox.home,
      env: childEnv(sandbox, options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr, json: () => parseJson(stdout, stderr) });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A long-running `svc` (daemon start, dev) you can read from, signal and wait for. */
export interface SvcProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** resolves with the first stdout line matching, rejects on exit or timeout (default 20 s) */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** resolves with the first stderr text matching */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if still running (for afterEach) */
  kill(): void;
}

export function spawnSvc(sandbox: CliSandbox, args: readonly string[], options: Omit<RunOptions, 'timeoutMs'> = {}): SvcProcess {
  const child = spawn(process.execPath, [SVC_BIN, ...args], {
    cwd: sandbox.home,
    env: childEnv(sandbox, options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    notify();
  });
  child.stdin!.end(options.input ?? '');
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('close', (code, signal) => {
      done = true;
      notify();
      res({ code, signal });
    }),
  );

  const waitFor = (source: () => string, pattern: RegExp, timeoutMs: number, lines: boolean) =>
    new Promise<string>((res, rej) => {
      const check = () => {
        const text = source();
        const hit = lines ? text.split('\n').find((l) => pattern.test(l)) : pattern.exec(text)?.[0];
        if (hit !== undefined) {
          cleanup();
          res(hit);
        } else if (done) {
          cleanup();
          rej(new Error(`svc exited before printing ${pattern}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        rej(new Error(`timed out waiting for ${pattern}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForLine: (pattern, timeoutMs = 20_000) => waitFor(() => stdout, pattern, timeoutMs, true),
    waitForStderr: (pattern, timeoutMs = 20_000) => waitFor(() => stderr, pattern, timeoutMs, false),
    exited,
    kill() {
      if (!done) child.kill('SIGKILL');
    },
  };
}

/** The environment that points a CLI run at a daemon without any stored profile (CI style). */
export function envFor(target: { url: string; key?: string; team?: string; adminToken?: string }): Record<string, string> {
  const env: Record<string, string> = { SVC_BASE_URL: target.url };
  if (target.key) env.SVC_API_KEY = target.key;
  if (target.team) env.SVC_TEAM = target.team;
  if (target.adminToken) env.SVC_ADMIN_TOKEN = target.adminToken;
  return env;
}

/** `svc login --key-stdin` into the sandbox (file storage unless the sandbox has a keychain). */
export async function loginSvc(
  sandbox: CliSandbox,
  target: { url: string; team: string; key: string; profile?: string },
): Promise<RunResult> {
  const args = ['login', '--url', target.url, '--team', target.team, '--key-stdin'];
  if (target.profile) args.push('--profile', target.profile);
  const r = await runSvc(sandbox, args, { input: target.key });
  if (r.code !== 0) throw new Error(`svc login failed (${r.code}): ${r.stderr}`);
  return r;
}

/**
 * A fresh sandbox for each test of the file, and `svc` processes (daemon start, dev) that are
 * killed and waited for after each: `const cli = useSandboxedProcesses()` at the top level, then
 * `cli.sb` and `cli.spawn(args, options)` in tests.
 */
export function useSandboxedProcesses() {
  const running: SvcProcess[] = [];
  const state = {
    sb: undefined as unknown as CliSandbox,
    spawn(args: readonly string[], options: Omit<RunOptions, 'timeoutMs'> = {}): SvcProcess {
      const p = spawnSvc(state.sb, args, options);
      running.push(p);
      return p;
    },
  };
  beforeEach(async () => {
    state.sb = await makeSandbox();
  });
  afterEach(async () => {
    for (const p of running.splice(0)) {
      p.kill();
      await p.exited;
    }
    await state.sb.cleanup();
  });
  return state;
}
