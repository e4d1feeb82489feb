// Builds the runner DaemonOptions ask for (CONTRACT §3): `record` unless told otherwise.
import { randomBytes } from 'node:crypto';
import type { DaemonOptions } from '../config.js';
import type { EnvVarService } from '../env-vars/service.js';
import { readOrCreateSecret } from '../secrets/secret-file.js';
import { ExecRunner, type TurnEnvironment } from './exec.js';
import { RecordRunner } from './record.js';
import type { Runner, Turn, TurnReporter } from './runner.js';
import { TurnGroupLedger, type TurnGroupLog } from './turn-groups.js';
import { WebhookRunner } from './webhook.js';

export const DEFAULT_RUNNER_TIMEOUT_MS = 10 * 60 * 1000;
export const DEFAULT_RUNNER_CONCURRENCY = 4;
export const RUNNER_SECRET_FILE = 'runner-secret';

export interface RunnerFactoryDeps {
  options: DaemonOptions;
  envVars: EnvVarService;
  log?: TurnGroupLog;
}

export const generateRunnerSecret = () => randomBytes(32).toString('hex');

/** Checks the options at once (a bad runner setup stops the daemon from starting). */
export function runnerFactory({ options, envVars, log }: RunnerFactoryDeps): (reporter: TurnReporter) => Runner {
  const kind = options.runner ?? 'record';
  const timeoutMs = options.runnerTimeoutMs ?? DEFAULT_RUNNER_TIMEOUT_MS;
  // Whatever the runner is now, exec turns a killed daemon left running end here (turn-groups.ts).
  // Started at once, so it reads only what the earlier process recorded, never a turn of this one.
  const ledger = new TurnGroupLedger(options.dataDir, log);
  const leftoversEnded = ledger.endLeftovers().catch(() => undefined);
  switch (kind) {
    case 'record':
      return () => new RecordRunner();
    case 'exec': {
      if (!options.runnerCommand?.trim()) throw new Error('--runner exec needs --runner-command "CMD"');
      const command = options.runnerCommand;
      const environment = (turn: Turn) => turnEnvironment(envVars, turn);
      const concurrency = options.runnerConcurrency ?? DEFAULT_RUNNER_CONCURRENCY;
      return (reporter) => new ExecRunner({ command, timeoutMs, concurrency, reporter, environment, ledger, leftoversEnded });
    }
    case 'webhook': {
      if (!options.runnerUrl) throw new Error('--runner webhook needs --runner-url URL');
      const url = options.runnerUrl;
      const given = options.runnerSecret;
      const secret = () =>
        given ? Promise.resolve(given) : readOrCreateSecret(options.dataDir, RUNNER_SECRET_FILE, generateRunnerSecret);
      const runner = new WebhookRunner({ url, secret, timeoutMs });
      return () => runner;
    }
    default:
      throw new Error(`unknown runner "${String(kind)}" (record, exec or webhook)`);
  }
}

/** The session environment's decrypted variables. */
async function turnEnvironment(envVars: EnvVarService, turn: Turn): Promise<TurnEnvironment> {
  const envId = turn.session.environment_id;
  return { vars: envId ? await envVars.values(envId) : {} };
}
