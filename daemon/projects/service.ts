// Project-scoped routes (spec §4.9): a project key sees its own project, the environments that
// belong to it, and the schedules of automations running in those environments.
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import { requireOneLineName } from '../text-checks.js';
import type { ReadTx, Store } from '../store/store.js';
import { loadTriggers, type ScheduleListener } from '../automations/service.js';
import { triggerView } from '../automations/view.js';
import { environmentView, projectView } from '../teams/service.js';

async function requireProject(tx: ReadTx, projectId: string) {
  const p = await tx.get('projects', projectId);
  if (!p) throw notFound('project');
  return p;
}

/** Schedule triggers of automations whose environment belongs to the project. */
async function projectSchedules(tx: ReadTx, projectId: string, teamId: string) {
  const envIds = new Set((await tx.list('environments', { project_id: projectId })).map((e) => e.id));
  const out = [];
  for (const a of await tx.list('automations', { team_id: teamId })) {
    if (!a.environment_id || !envIds.has(a.environment_id)) continue;
    for (const t of await loadTriggers(tx, a.id)) if (t.kind === 'schedule') out.push({ automation: a, trigger: t });
  }
  return out;
}

export class ProjectService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly listener: ScheduleListener,
  ) {}

  async get(projectId: string) {
    return this.store.read(async (tx) => projectView(await requireProject(tx, projectId)));
  }

  async updateEnvironment(projectId: string, envId: string, patch: { name?: string; description?: string }) {
    requireOneLineName(patch.name);
    return this.store.write(async (tx) => {
      await requireProject(tx, projectId);
      const env = await tx.get('environments', envId);
      if (!env || env.project_id !== projectId) throw notFound('environment');
      const next = {
        ...env,
        name: patch.name ?? env.name,
        description: patch.description ?? env.description,
        updated_at: this.clock().toISOString(),
      };
      tx.put('environments', next);
      return environmentView(next);
    });
  }

  async listSchedules(projectId: string) {
    return this.store.read(async (tx) => {
      const project = await requireProject(tx, projectId);
      return (await projectSchedules(tx, projectId, project.team_id)).map(({ automation, trigger }) => ({
        ...triggerView(trigger),
        automation_name: automation.name,
      }));
    });
  }

  /**
   * Removes one schedule. An automation needs at least one trigger, so removing its last one
   * removes the automation with it.
   */
  async deleteSchedule(projectId: string, scheduleId: string) {
    const result = await this.store.write(async (tx) => {
      const project = await requireProject(tx, projectId);
      const found = (await projectSchedules(tx, projectId, project.team_id)).find((s) => s.trigger.id === scheduleId);
      if (!found) throw notFound('schedule');
      tx.delete('triggers', scheduleId);
      const remaining = (await loadTriggers(tx, found.automation.id)).length;
      // The automation changed (its triggers, perhaps its type and next run): it says so.
      if (remaining === 0) tx.delete('automations', found.automation.id);
      else await tx.update('automations', found.automation.id, { updated_at: this.clock().toISOString() });
      return { success: true as const, automation_deleted: remaining === 0 };
    });
    await this.listener.schedulesChanged();
    return result;
  }
}
