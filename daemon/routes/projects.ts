// Project-scoped routes (spec §4.9): project keys only, and only their own project.
import Type from 'typebox';
import {
  Data, Environment, NoBody, Project, ProjectEnvParams, ProjectParams, ProjectScheduleParams, Trigger, UpdateEnvironmentBody,
} from '../../shared/schemas/index.js';
import { ApiError } from '../errors.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';

const config = { auth: 'project' as const };
const tags = ['projects'];

export function projectRoutes(app: App, { projects }: Services): void {
  // A key reaches only its own project; any other id answers 404 so it is not revealed.
  app.addHook('preHandler', async (req) => {
    if (req.routeOptions.config?.auth !== 'project') return;
    const id = (req.params as { id?: string }).id;
    if (req.principal?.kind !== 'project' || req.principal.projectId !== id) throw new ApiError('NOT_FOUND', 'project not found');
  });

  app.get('/projects/:id', { config, schema: { tags, params: ProjectParams, response: { 200: Data(Project) } } }, async (req) => ({
    data: await projects.get(req.params.id),
  }));

  app.patch(
    '/projects/:id/environments/:envId',
    { config, schema: { tags, params: ProjectEnvParams, body: UpdateEnvironmentBody, response: { 200: Data(Environment) } } },
    async (req) => ({ data: await projects.updateEnvironment(req.params.id, req.params.envId, req.body ?? {}) }),
  );

  app.get(
    '/projects/:id/schedules',
    {
      config,
      schema: { tags, params: ProjectParams, response: { 200: Data(Type.Array(Type.Object({ ...Trigger.properties, automation_name: Type.String() }))) } },
    },
    async (req) => ({ data: await projects.listSchedules(req.params.id) }),
  );

  app.delete(
    '/projects/:id/schedules/:scheduleId',
    {
      config,
      schema: { tags, params: ProjectScheduleParams, body: NoBody, response: { 200: Data(Type.Object({ success: Type.Literal(true), automation_deleted: Type.Boolean() })) } },
    },
    async (req) => ({ data: await projects.deleteSchedule(req.params.id, req.params.scheduleId) }),
  );
}
