// The admin API (CONTRACT §2): the self-hosted stand-in for the dashboard.
import {
  AdminTeamParams, CreateEnvironmentBody, CreateKeyBody, CreateProjectBody, CreateTeamBody, CreatedKey,
  CreatedProjectKey, Data, Environment, KeyInfo, KeyParams, NoBody, AdminProjectParams, ProjectWithTeam, Success, Team,
  UpdateTeamBody,
} from '../../shared/schemas/index.js';
import Type from 'typebox';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';

const admin = { auth: 'admin' as const };
const tags = ['admin'];

export function adminRoutes(app: App, { teams }: Services): void {
  app.post('/admin/teams', { config: admin, schema: { tags, body: CreateTeamBody, response: { 201: Data(Team) } } }, async (req, reply) =>
    reply.status(201).send({ data: await teams.createTeam(req.body) }),
  );

  app.get('/admin/teams', { config: admin, schema: { tags, response: { 200: Data(Type.Array(Team)) } } }, async () => ({
    data: await teams.listTeams(),
  }));

  app.patch('/admin/teams/:slug', { config: admin, schema: { tags, params: AdminTeamParams, body: UpdateTeamBody, response: { 200: Data(Team) } } }, async (req) => ({
    data: await teams.updateTeam(req.params.slug, req.body),
  }));

  app.delete('/admin/teams/:slug', { config: admin, schema: { tags, params: AdminTeamParams, body: NoBody, response: { 200: Data(Success) } } }, async (req) => ({
    data: await teams.deleteTeam(req.params.slug),
  }));

  app.post('/admin/teams/:slug/keys', { config: admin, schema: { tags, params: AdminTeamParams, body: CreateKeyBody, response: { 201: Data(CreatedKey) } } }, async (req, reply) =>
    reply.status(201).send({ data: await teams.createTeamKey(req.params.slug, req.body?.name) }),
  );

  app.get('/admin/teams/:slug/keys', { config: admin, schema: { tags, params: AdminTeamParams, response: { 200: Data(Type.Array(KeyInfo)) } } }, async (req) => ({
    data: await teams.listTeamKeys(req.params.slug),
  }));

  app.delete('/admin/teams/:slug/keys/:keyId', { config: admin, schema: { tags, params: KeyParams, body: NoBody, response: { 200: Data(Success) } } }, async (req) => ({
    data: await teams.revokeTeamKey(req.params.slug, req.params.keyId),
  }));

  app.post('/admin/teams/:slug/projects', { config: admin, schema: { tags, params: AdminTeamParams, body: CreateProjectBody, response: { 201: Data(ProjectWithTeam) } } }, async (req, reply) =>
    reply.status(201).send({ data: await teams.createProject(req.params.slug, req.body) }),
  );

  app.post('/admin/projects/:id/key', { config: admin, schema: { tags, params: AdminProjectParams, body: NoBody, response: { 201: Data(CreatedProjectKey) } } }, async (req, reply) =>
    reply.status(201).send({ data: await teams.rotateProjectKey(req.params.id) }),
  );

  app.post('/admin/teams/:slug/environments', { config: admin, schema: { tags, params: AdminTeamParams, body: CreateEnvironmentBody, response: { 201: Data(Environment) } } }, async (req, reply) =>
    reply.status(201).send({ data: await teams.createEnvironment(req.params.slug, req.body) }),
  );
}
