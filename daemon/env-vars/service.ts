// Team environment variables (CONTRACT §7): values sealed at rest, never returned or logged.
import { newId } from '../store/new-id.js';
import { MAX_ENV_VALUE_BYTES, type EnvVarDto } from '../../shared/schemas/index.js';
import type { Clock } from '../clock.js';
import { invalid, notFound } from '../errors.js';
import type { Sealer } from '../secrets/sealer.js';
import type { ReadTx, Store } from '../store/store.js';
import type { EnvironmentRow, EnvVarRow } from '../store/tables.js';
import { DEFAULT_ENV_SLUG, findEnvironmentBySlug } from '../teams/service.js';
import { envVarSealContext } from './seal-context.js';

export interface EnvSelector {
  environment_id?: string;
  environment_slug?: string;
}

const view = (v: EnvVarRow): EnvVarDto => ({
  name: v.name,
  has_value: v.sealed !== '',
  is_secret: v.is_secret,
  environment_id: v.environment_id,
});

/** The id selector wins over the slug; neither means the team's default environment. */
async function resolveEnvironment(tx: ReadTx, teamId: string, sel: EnvSelector): Promise<EnvironmentRow> {
  if (sel.environment_id) {
    const env = await tx.get('environments', sel.environment_id);
    if (!env || env.team_id !== teamId) throw notFound('environment');
    return env;
  }
  const slug = sel.environment_slug ?? DEFAULT_ENV_SLUG;
  const env = await findEnvironmentBySlug(tx, teamId, slug);
  if (!env) throw notFound(`environment "${slug}"`);
  return env;
}


export class EnvVarService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sealer: Sealer,
  ) {}

  async put(teamId: string, name: string, input: { value: string; is_secret?: boolean } & EnvSelector): Promise<EnvVarDto> {
    if (Buffer.byteLength(input.value, 'utf8') > MAX_ENV_VALUE_BYTES) throw invalid(`body.value must be at most ${MAX_ENV_VALUE_BYTES} bytes`);
    // The exec runner hands values to a process environment, where a NUL cannot be (it ends the string).
    if (input.value.includes('\0')) throw invalid('body.value must not contain a NUL character (\\u0000): a process environment cannot hold one');
    return this.store.write(async (tx) => {
      const env = await resolveEnvironment(tx, teamId, input);
      const [existing] = await tx.list('env_vars', { environment_id: env.id, name });
      const now = this.clock().toISOString();
      const row: EnvVarRow = {
        id: existing?.id ?? newId(),
        team_id: teamId,
        environment_id: env.id,
        name,
        is_secret: input.is_secret ?? true,
        sealed: this.sealer.seal(input.value, envVarSealContext(env.id, name)),
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      tx.put('env_vars', row);
      return view(row);
    });
  }

  /** With a selector, that environment's variables; without, every environment's. */
  async list(teamId: string, sel: EnvSelector): Promise<EnvVarDto[]> {
    return this.store.read(async (tx) => {
      if (!sel.environment_id && !sel.environment_slug) return (await tx.list('env_vars', { team_id: teamId })).map(view);
      const env = await resolveEnvironment(tx, teamId, sel);
      return (await tx.list('env_vars', { environment_id: env.id })).map(view);
    });
  }

  async delete(teamId: string, name: string, sel: EnvSelector) {
    await this.store.write(async (tx) => {
      const env = await resolveEnvironment(tx, teamId, sel);
      const [existing] = await tx.list('env_vars', { environment_id: env.id, name });
      if (!existing) throw notFound(`env var ${name} in environment "${env.slug}"`);
      tx.delete('env_vars', existing.id);
    });
    return { success: true as const };
  }

  /** The plain values of an environment, for the runner that executes a session there. */
  async values(environmentId: string): Promise<Record<string, string>> {
    const rows = await this.store.read((tx) => tx.list('env_vars', { environment_id: environmentId }));
    return Object.fromEntries(rows.map((v) => [v.name, this.sealer.open(v.sealed, envVarSealContext(v.environment_id, v.name))]));
  }
}
