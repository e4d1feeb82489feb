// Teams, their keys, projects and environments: what the admin API manages (CONTRACT §2).
import { newId } from '../store/new-id.js';
import type { Clock } from '../clock.js';
import { ApiError, conflict, notFound } from '../errors.js';
import { UniqueViolation, type ReadTx, type Store, type WriteTx } from '../store/store.js';
import type { ApiKeyRow, EnvironmentRow, ProjectRow, TeamRow } from '../store/tables.js';
import { generateKey, hashKey, keyPrefix } from '../auth/keys.js';
import { requireOneLineName } from '../text-checks.js';

export const DEFAULT_ENV_SLUG = 'default';

export const teamView = (t: TeamRow) => ({
  id: t.id,
  slug: t.slug,
  name: t.name,
  execution_admitted: t.execution_admitted,
  created_at: t.created_at,
});

export const keyView = (k: ApiKeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
  revoked_at: k.revoked_at,
});

export const projectView = (p: ProjectRow) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  availableTasks: p.availableTasks,
});

export const environmentView = (e: EnvironmentRow) => ({
  id: e.id,
  environment_id: e.id,
  slug: e.slug,
  name: e.name,
  description: e.description,
  team_id: e.team_id,
  project_id: e.project_id,
  created_at: e.created_at,
  updated_at: e.updated_at,
});

export async function findTeamBySlug(tx: ReadTx, slug: string): Promise<TeamRow | undefined> {
  return (await tx.list('teams', { slug }))[0];
}

export async function requireTeamBySlug(tx: ReadTx, slug: string): Promise<TeamRow> {
  const team = await findTeamBySlug(tx, slug);
  if (!team) throw notFound('team');
  return team;
}

export async function findEnvironmentBySlug(tx: ReadTx, teamId: string, slug: string) {
  return (await tx.list('environments', { team_id: teamId, slug }))[0];
}

/** `write`, with the store's refusal of a taken unique value in `table` answered as `taken()` (409). */
async function writeUnique<R>(store: Store, table: UniqueViolation['table'], taken: () => ApiError, fn: (tx: WriteTx) => Promise<R>): Promise<R> {
  try {
    return await store.write(fn);
  } catch (err) {
    if (err instanceof UniqueViolation && err.table === table) throw taken();
    throw err;
  }
}

export class TeamService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async createTeam(input: { slug: string; name?: string }) {
    requireOneLineName(input.name);
    const now = this.clock().toISOString();
    const taken = () => conflict(`team slug "${input.slug}" is taken`);
    // Looked up first for the message; the store keeps slugs unique whatever was seen.
    return writeUnique(this.store, 'teams', taken, async (tx) => {
      if (await findTeamBySlug(tx, input.slug)) throw taken();
      const team: TeamRow = {
        id: newId(),
        slug: input.slug,
        name: input.name ?? input.slug,
        execution_admitted: true,
        created_at: now,
        updated_at: now,
      };
      tx.put('teams', team);
      this.putEnvironment(tx, team.id, { slug: DEFAULT_ENV_SLUG, name: 'Default', description: 'The team default environment' });
      return teamView(team);
    });
  }

  async listTeams() {
    return this.store.read(async (tx) => (await tx.list('teams')).map(teamView));
  }

  async updateTeam(slug: string, patch: { name?: string; execution_admitted?: boolean }) {
    requireOneLineName(patch.name);
    return this.store.write(async (tx) => {
      const team = await requireTeamBySlug(tx, slug);
      const next: TeamRow = { ...team, ...definedOnly(patch), updated_at: this.clock().toISOString() };
      tx.put('teams', next);
      return teamView(next);
    });
  }

  /** Removes the team and everything that belongs to it. */
  async deleteTeam(slug: string) {
    await this.store.write(async (tx) => {
      const team = await requireTeamBySlug(tx, slug);
      const byTeam = { team_id: team.id };
      for (const k of await tx.list('api_keys', byTeam)) tx.delete('api_keys', k.id);
      for (const p of await tx.list('projects', byTeam)) tx.delete('projects', p.id);
      for (const e of await tx.list('environments', byTeam)) tx.delete('environments', e.id);
      for (const a of await tx.list('automations', byTeam)) tx.delete('automations', a.id);
      for (const t of await tx.list('triggers', byTeam)) tx.delete('triggers', t.id);
      for (const v of await tx.list('env_vars', byTeam)) tx.delete('env_vars', v.id);
      for (const s of await tx.list('sessions', byTeam)) {
        for (const m of await tx.list('messages', { session_id: s.session_id })) tx.delete('messages', m.id);
        tx.delete('sessions', s.session_id);
      }
      for (const e of await tx.list('events', byTeam)) tx.delete('events', e.id);
      // (their delivery logs age out with retention, as a deleted connection's do)
      for (const c of await tx.list('connections', byTeam)) tx.delete('connections', c.id);
      tx.delete('teams', team.id);
    });
    return { success: true as const };
  }

  async createTeamKey(slug: string, name: string | undefined) {
    requireOneLineName(name);
    const key = generateKey('team');
    return this.store.write(async (tx) => {
      const team = await requireTeamBySlug(tx, slug);
      const row = this.keyRow('team', team.id, null, name ?? null, key);
      tx.put('api_keys', row);
      return { id: row.id, name: row.name, key, prefix: row.prefix, created_at: row.created_at };
    });
  }

  async listTeamKeys(slug: string) {
    return this.store.read(async (tx) => {
      const team = await requireTeamBySlug(tx, slug);
      return (await tx.list('api_keys', { team_id: team.id })).filter((k) => k.kind === 'team').map(keyView);
    });
  }

  async revokeTeamKey(slug: string, keyId: string) {
    await this.store.write(async (tx) => {
      const team = await requireTeamBySlug(tx, slug);
      const key = await tx.get('api_keys', keyId);
      if (!key || key.team_id !== team.id || key.kind !== 'team') throw notFound('key');
      if (!key.revoked_at) tx.put('api_keys', { ...key, revoked_at: this.clock().toISOString() });
    });
    return { success: true as const };
  }

  async createProject(slug: string, input: { name: string; description?: string; availableTasks?: string[] }) {
    requireOneLineName(input.name);
    const now = this.clock().toISOString();
    return this.store.write(async (tx) => {
      const team = await requireTeamBySlug(tx, slug);
      const project: ProjectRow = {
        id: newId(),
        team_id: team.id,
        name: input.name,
        description: input.description ?? '',
        availableTasks: input.availableTasks ?? [],
        created_at: now,
        updated_at: now,
      };
      tx.put('projects', project);
      return { ...projectView(project), team_id: team.id };
    });
  }

  /** Issues a new project key; the previous one stops working at once. */
  async rotateProjectKey(projectId: string) {
    const key = generateKey('project');
    return this.store.write(async (tx) => {
      const project = await tx.get('projects', projectId);
      if (!project) throw notFound('project');
      const now = this.clock().toISOString();
      for (const old of await tx.list('api_keys', { project_id: projectId })) {
        if (!old.revoked_at) tx.put('api_keys', { ...old, revoked_at: now });
      }
      const row = this.keyRow('project', project.team_id, project.id, null, key);
      tx.put('api_keys', row);
      return { key, prefix: row.prefix, created_at: row.created_at };
    });
  }

  async createEnvironment(
    slug: string,
    input: { name: string; slug: string; description?: string; project_id?: string | null },
  ) {
    requireOneLineName(input.name);
    const taken = () => conflict(`environment slug "${input.slug}" is taken in team ${slug}`);
    return writeUnique(this.store, 'environments', taken, async (tx) => {
      const team = await requireTeamBySlug(tx, slug);
      if (await findEnvironmentBySlug(tx, team.id, input.slug)) throw taken();
      if (input.project_id) {
        const project = await tx.get('projects', input.project_id);
        if (!project || project.team_id !== team.id) {
          throw new ApiError('VALIDATION_ERROR', 'project_id is not a project of this team');
        }
      }
      return environmentView(this.putEnvironment(tx, team.id, input));
    });
  }

  async listEnvironments(teamId: string) {
    return this.store.read(async (tx) => (await tx.list('environments', { team_id: teamId })).map(environmentView));
  }

  private putEnvironment(
    tx: WriteTx,
    teamId: string,
    input: { slug: string; name: string; description?: string; project_id?: string | null },
  ): EnvironmentRow {
    const now = this.clock().toISOString();
    const env: EnvironmentRow = {
      id: newId(),
      team_id: teamId,
      project_id: input.project_id ?? null,
      slug: input.slug,
      name: input.name,
      description: input.description ?? '',
      created_at: now,
      updated_at: now,
    };
    tx.put('environments', env);
    return env;
  }

  private keyRow(kind: ApiKeyRow['kind'], teamId: string, projectId: string | null, name: string | null, key: string): ApiKeyRow {
    return {
      id: newId(),
      kind,
      team_id: teamId,
      project_id: projectId,
      name,
      prefix: keyPrefix(key),
      hash: hashKey(key),
      created_at: this.clock().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
  }
}

/** Drops keys whose value is undefined, so a partial update never blanks a field. */
export function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
