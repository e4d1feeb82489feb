// Automations and their triggers: create, read, list, update (trigger-set replacement), delete.
import { newId } from '../store/new-id.js';
import { nextScheduleRun } from '../../shared/cron.js';
import type { CreateAutomationInput, UpdateAutomationInput } from '../../shared/schemas/index.js';
import type { Clock } from '../clock.js';
import { conflict, invalid, notFound } from '../errors.js';
import { keysetPage, type PageRequest } from '../http/pagination.js';
import { UniqueViolation, type ReadTx, type Store, type WriteTx } from '../store/store.js';
import { automationNameKey } from '../../shared/automation-names.js';
import { lastErrorFields } from './last-error.js';
import { type AutomationRow, type AutomationStatus, type TriggerRow } from '../store/tables.js';
import { DEFAULT_ENV_SLUG, findEnvironmentBySlug } from '../teams/service.js';
import { matchKey, typeKey } from './ids.js';
import { triggerSpecsFrom, type TriggerSpec } from './trigger-input.js';
import { automationView } from './view.js';
import { requireOneLineName, requirePromptText } from '../text-checks.js';

/**
 * Told whenever schedule triggers change, so every daemon's scheduler re-reads them. A change is
 * answered once this resolves: from then on, every daemon has been told.
 */
export interface ScheduleListener {
  schedulesChanged(): Promise<void> | void;
}

export interface ListAutomationsFilter extends PageRequest {
  status?: AutomationStatus;
  type?: 'schedule' | 'event';
}

export async function loadTriggers(tx: ReadTx, automationId: string): Promise<TriggerRow[]> {
  return (await tx.list('triggers', { automation_id: automationId })).sort((a, b) => a.position - b.position);
}

export async function requireAutomation(tx: ReadTx, teamId: string, id: string): Promise<AutomationRow> {
  const a = await tx.get('automations', id);
  if (!a || a.team_id !== teamId) throw notFound('automation');
  return a;
}

export class AutomationService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly listener: ScheduleListener = { schedulesChanged() {} },
  ) {}

  async create(teamId: string, input: CreateAutomationInput) {
    const now = this.clock();
    const specs = triggerSpecsFrom(input, now);
    if (!specs) throw invalid('body.triggers is required (at least one trigger), or a compatibility field: one_off_at, or event_type');
    if (specs.some((s) => s.id !== undefined)) throw invalid('body.triggers[].id can only name an existing trigger on update');
    requireOneLineName(input.name);
    requirePromptText(input.prompt);
    const view = await this.writeNamed(input.name, async (tx) => {
      await this.assertNameFree(tx, teamId, input.name);
      const environmentId = await this.resolveEnvironment(tx, teamId, input.environment_id);
      const at = now.toISOString();
      const row: AutomationRow = {
        id: newId(),
        team_id: teamId,
        name: input.name,
        name_key: automationNameKey(input.name),
        prompt: input.prompt,
        status: input.status ?? 'active',
        environment_id: environmentId,
        repo_filters: input.repo_filters ?? {},
        last_error: null,
        last_error_at: null,
        consecutive_failures: 0,
        created_at: at,
        updated_at: at,
      };
      tx.put('automations', row);
      const triggers = specs.map((spec, i) => this.newTrigger(row, spec, i, now));
      for (const t of triggers) tx.put('triggers', t);
      return automationView(row, triggers);
    });
    await this.listener.schedulesChanged();
    return view;
  }

  async get(teamId: string, id: string) {
    return this.store.read(async (tx) => {
      const a = await requireAutomation(tx, teamId, id);
      return automationView(a, await loadTriggers(tx, a.id));
    });
  }

  /** Newest first. */
  async list(teamId: string, filter: ListAutomationsFilter) {
    return this.store.read((tx) =>
      keysetPage(
        filter,
        async (start, limit) => {
          const rows = await tx.page('automations', { where: { team_id: teamId, status: filter.status }, ...start, limit });
          return Promise.all(rows.map(async (a) => ({ a, triggers: await loadTriggers(tx, a.id) })));
        },
        ({ a }) => a.id,
        ({ a, triggers }) => automationView(a, triggers),
        // An automation's type is its first trigger's kind: a condition on another table.
        filter.type === undefined ? undefined : ({ triggers }) => (triggers[0]?.kind ?? 'schedule') === filter.type,
      ),
    );
  }

  async update(teamId: string, id: string, input: UpdateAutomationInput) {
    const now = this.clock();
    if (input.name !== undefined) requireOneLineName(input.name);
    if (input.prompt !== undefined) requirePromptText(input.prompt);
    const view = await this.writeNamed(input.name, async (tx) => {
      const current = await requireAutomation(tx, teamId, id);
      const existing = await loadTriggers(tx, id);
      const specs = triggerSpecsFrom(input, now, existing);
      if (input.name !== undefined && automationNameKey(input.name) !== current.name_key) await this.assertNameFree(tx, teamId, input.name);
      const next: AutomationRow = {
        ...current,
        name: input.name ?? current.name,
        name_key: automationNameKey(input.name ?? current.name),
        prompt: input.prompt ?? current.prompt,
        status: input.status ?? current.status,
        environment_id:
          input.environment_id !== undefined ? await this.resolveEnvironment(tx, teamId, input.environment_id) : current.environment_id,
        repo_filters: input.repo_filters ?? current.repo_filters,
        updated_at: now.toISOString(),
      };
      const resumed = next.status === 'active' && current.status !== 'active';
      if (resumed) next.consecutive_failures = 0;
      const triggers = specs
        ? this.replaceTriggers(tx, next, existing, specs, now, !!input.triggers, resumed)
        : existing.map((t) => this.refreshSchedule(tx, next, t, now, resumed));
      // One-offs whose time passed while paused are done without a run, like a slot missed
      // beyond the catch-up window (the resume completed them above); the note says so.
      const wasActive = new Set(existing.filter((t) => t.status === 'active').map((t) => t.id));
      const passed = triggers.filter((t) => t.status === 'completed' && wasActive.has(t.id));
      if (passed.length > 0) {
        Object.assign(next, lastErrorFields(`one-off run ${passed.map((t) => `for ${t.one_off_at}`).join(', ')} skipped: its time passed while the automation was ${current.status}`, now.toISOString()));
      }
      tx.put('automations', next);
      return automationView(next, triggers);
    });
    await this.listener.schedulesChanged();
    return view;
  }

  async delete(teamId: string, id: string) {
    await this.store.write(async (tx) => {
      await requireAutomation(tx, teamId, id);
      for (const t of await tx.list('triggers', { automation_id: id })) tx.delete('triggers', t.id);
      tx.delete('automations', id);
    });
    await this.listener.schedulesChanged();
    return { success: true as const };
  }

  /**
   * A trigger array replaces the set: listed ids are updated in place (keeping counters), new
   * ones are created, unlisted ones removed. Compatibility fields replace the set with one
   * trigger, reusing the first existing trigger of the same kind so its counters survive.
   */
  private replaceTriggers(tx: WriteTx, a: AutomationRow, existing: TriggerRow[], specs: TriggerSpec[], now: Date, explicit: boolean, resumed = false): TriggerRow[] {
    const byId = new Map(existing.map((t) => [t.id, t]));
    if (!explicit && specs.length === 1 && specs[0].id === undefined) {
      const reuse = existing.find((t) => t.kind === specs[0].kind);
      if (reuse) specs = [{ ...specs[0], id: reuse.id }];
    }
    const seen = new Set<string>();
    const result = specs.map((spec, i) => {
      if (spec.id === undefined) return this.newTrigger(a, spec, i, now);
      const old = byId.get(spec.id);
      if (!old) throw invalid(`body.triggers[${i}].id ${spec.id} is not a trigger of this automation`);
      if (seen.has(spec.id)) throw invalid(`body.triggers[${i}].id ${spec.id} is listed twice`);
      seen.add(spec.id);
      return this.updatedTrigger(a, old, spec, i, now, resumed);
    });
    for (const t of existing) if (!seen.has(t.id)) tx.delete('triggers', t.id);
    for (const t of result) tx.put('triggers', t);
    return result;
  }

  private newTrigger(a: AutomationRow, spec: TriggerSpec, position: number, now: Date): TriggerRow {
    const at = now.toISOString();
    const base: TriggerRow = {
      id: newId(),
      automation_id: a.id,
      team_id: a.team_id,
      kind: spec.kind,
      position,
      enabled: spec.enabled,
      status: spec.enabled ? 'active' : 'disabled',
      total_runs: 0,
      created_at: at,
      updated_at: at,
      timezone: null,
      cron_expression: null,
      one_off_at: null,
      next_run_at: null,
      last_run_at: null,
      lease_until: null,
      lease_owner: null,
      provider: null,
      event_type: null,
      connection_id: null,
      filters: null,
      match_key: null,
    };
    return withSpec(a, base, spec, now);
  }

  private updatedTrigger(a: AutomationRow, old: TriggerRow, spec: TriggerSpec, position: number, now: Date, resumed: boolean): TriggerRow {
    if (old.kind !== spec.kind) throw invalid(`body.triggers[${position}] changes trigger ${old.id} from ${old.kind} to ${spec.kind}; drop its id to replace it`);
    const next = withSpec(a, { ...old, position, enabled: spec.enabled, updated_at: now.toISOString() }, spec, now);
    const keptOneOff = spec.kind === 'schedule' && spec.one_off_at !== null && old.one_off_at === spec.one_off_at;
    // A completed one-off whose time did not change stays completed (its zone does not move an instant).
    if (keptOneOff && old.status === 'completed') return { ...next, status: 'completed', next_run_at: null };
    if (keptOneOff && spec.enabled && oneOffPassed(old, now) && a.status === 'active') {
      // Its time passed while the automation was paused: resuming completes it without a run, as
      // a resume alone does. Otherwise it is due and the scheduler has yet to fire it: it still will.
      if (resumed) return { ...next, status: 'completed', next_run_at: null };
      return { ...next, next_run_at: old.next_run_at };
    }
    return next;
  }

  private refreshSchedule(tx: WriteTx, a: AutomationRow, t: TriggerRow, now: Date, resumed: boolean): TriggerRow {
    if (t.kind !== 'schedule') return t;
    if (resumed && oneOffPassed(t, now)) {
      const done: TriggerRow = { ...t, status: 'completed', next_run_at: null, updated_at: now.toISOString() };
      tx.put('triggers', done);
      return done;
    }
    const next_run_at = a.status !== 'active' || !t.enabled || t.status === 'completed' ? null : resumed || t.next_run_at === null ? nextRunIso(t, now) : t.next_run_at;
    if (next_run_at === t.next_run_at) return t;
    const updated = { ...t, next_run_at };
    tx.put('triggers', updated);
    return updated;
  }

  /**
   * A write that may give an automation `name`: the name taken meanwhile (the store refuses a
   * second automation with it in the team, whatever assertNameFree saw) is 409 too.
   */
  private async writeNamed<R>(name: string | undefined, fn: (tx: WriteTx) => Promise<R>): Promise<R> {
    try {
      return await this.store.write(fn);
    } catch (err) {
      if (name !== undefined && err instanceof UniqueViolation && err.table === 'automations') throw nameTaken(name);
      throw err;
    }
  }

  /** Looked up first only for the message: the store itself keeps names unique (see writeNamed). */
  private async assertNameFree(tx: ReadTx, teamId: string, name: string): Promise<void> {
    const [taken] = await tx.list('automations', { team_id: teamId, name_key: automationNameKey(name) });
    if (taken) throw nameTaken(taken.name, name);
  }

  /** The environment an automation runs in: the one named, or the team's default. */
  private async resolveEnvironment(tx: ReadTx, teamId: string, environmentId: string | null | undefined): Promise<string | null> {
    if (environmentId) {
      const env = await tx.get('environments', environmentId);
      if (!env || env.team_id !== teamId) throw invalid('body.environment_id is not an environment of this team');
      return env.id;
    }
    return (await findEnvironmentBySlug(tx, teamId, DEFAULT_ENV_SLUG))?.id ?? null;
  }
}

function withSpec(a: AutomationRow, base: TriggerRow, spec: TriggerSpec, now: Date): TriggerRow {
  if (spec.kind === 'schedule') {
    const t: TriggerRow = {
      ...base,
      status: spec.enabled ? 'active' : 'disabled',
      timezone: spec.timezone,
      cron_expression: spec.cron_expression,
      one_off_at: spec.one_off_at,
      provider: null,
      event_type: null,
      connection_id: null,
      filters: null,
      match_key: null,
      type_key: null,
    };
    t.next_run_at = a.status === 'active' && spec.enabled ? nextRunIso(t, now) : null;
    return t;
  }
  return {
    ...base,
    status: spec.enabled ? 'active' : 'disabled',
    timezone: null,
    cron_expression: null,
    one_off_at: null,
    next_run_at: null,
    provider: spec.provider,
    event_type: spec.event_type,
    connection_id: spec.connection_id,
    filters: spec.filters,
    match_key: matchKey(a.team_id, spec.provider, spec.event_type),
    type_key: typeKey(a.team_id, spec.event_type),
  };
}

/**
 * 409 naming the automation that holds the name as it spells it, and why `asked` is the same name
 * when it is spelled otherwise (names compare by automationNameKey).
 */
const nameTaken = (existing: string, asked = existing) =>
  conflict(
    existing === asked
      ? `an automation named "${existing}" already exists in this team`
      : `an automation named "${existing}" already exists in this team (names are compared ignoring case, Unicode forms and surrounding spaces, so "${asked}" is the same name)`,
  );

/** An enabled one-off that has not run and whose time has passed: it will never run now. */
const oneOffPassed = (t: TriggerRow, now: Date) =>
  t.kind === 'schedule' && t.one_off_at !== null && t.enabled && t.status === 'active' && nextRunIso(t, now) === null;

export function nextRunIso(t: Pick<TriggerRow, 'cron_expression' | 'one_off_at' | 'timezone'>, after: Date): string | null {
  return nextScheduleRun(t, after)?.toISOString() ?? null;
}

