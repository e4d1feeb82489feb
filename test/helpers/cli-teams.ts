// What the CLI test files that drive one daemon share: the daemon and a CLI sandbox for the file,
// and a team of its own per test, so one test's automations and events never meet another's.
import { afterAll, beforeAll } from 'vitest';
import { envFor, makeSandbox, runSvc, type CliSandbox, type RunOptions, type RunResult } from './cli.js';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from './daemon.js';

export interface CliTeam {
  slug: string;
  key: string;
  /** SVC_BASE_URL, SVC_API_KEY and SVC_TEAM of this team */
  env: Record<string, string>;
  /** the API as this team's key */
  api: Requester;
  /** the real `svc` as this team (per-run variables on top) */
  svc(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** the team's automations, as the API lists them */
  automations(): Promise<any[]>;
  /** an automation with one event trigger (`kind: event` added), made through the API */
  eventAutomation(name: string, trigger: Record<string, unknown>): Promise<{ id: string; triggers: { id: string }[] }>;
  /** an automation with one schedule trigger on `cron` (in `timezone`, when given), made through the API */
  cronAutomation(name: string, cron: string, fields?: { timezone?: string; status?: string; prompt?: string }): Promise<any>;
}

export interface CliTeams {
  readonly daemon: TestDaemon;
  readonly sandbox: CliSandbox;
  /** a new team (slugs `${prefix}1`, `${prefix}2`, ...) with a key */
  newTeam(): Promise<CliTeam>;
}

/** Starts a daemon and a sandbox before the file's tests and removes both after them. */
export function useCliTeams(prefix: string): CliTeams {
  let daemon: TestDaemon | undefined;
  let sandbox: CliSandbox | undefined;
  let teams = 0;
  beforeAll(async () => {
    [daemon, sandbox] = await Promise.all([startTestDaemon(), makeSandbox()]);
  });
  afterAll(async () => {
    await daemon?.destroy();
    await sandbox?.cleanup();
  });
  const started = () => {
    if (!daemon || !sandbox) throw new Error('useCliTeams: the daemon is not started yet (use it inside a test)');
    return { daemon, sandbox };
  };
  return {
    get daemon() {
      return started().daemon;
    },
    get sandbox() {
      return started().sandbox;
    },
    async newTeam() {
      const { daemon: d, sandbox: box } = started();
      const slug = `${prefix}${++teams}`;
      const { key, api } = await createTeam(d, slug);
      const env = envFor({ url: d.url, key, team: slug });
      // An automation made through the API, as its create answers it: the name, a prompt of its own, then `fields`.
      const automation = async (name: string, fields: Record<string, unknown>) => {
        const res = await api('POST', `/teams/${slug}/automations`, { name, prompt: `prompt of ${name}`, ...fields });
        if (res.status !== 201) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
        return res.body.data;
      };
      return {
        slug,
        key,
        env,
        api,
        svc: (args, opts = {}) => runSvc(box, args, { ...opts, env: { ...env, ...opts.env } }),
        automations: async () => (await api('GET', `/teams/${slug}/automations?limit=200`)).body.data,
        eventAutomation: (name, trigger) => automation(name, { triggers: [{ kind: 'event', ...trigger }] }),
        cronAutomation: (name, cron, { timezone, ...fields } = {}) =>
          automation(name, { ...fields, triggers: [{ kind: 'schedule', cron_expression: cron, ...(timezone ? { timezone } : {}) }] }),
      };
    },
  };
}
