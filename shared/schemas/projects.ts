// Projects (spec §2 "Project", §4.9) and environments (spec §2 "Environment", CONTRACT §2).
import Type from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.js';

export const Project = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  availableTasks: Type.Array(Type.String()),
}, { title: 'Project' });

export const ProjectWithTeam = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  availableTasks: Type.Array(Type.String()),
  team_id: Uuid,
});

export const Environment = Type.Object({
  id: Uuid,
  environment_id: Uuid,
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  team_id: Uuid,
  project_id: Nullable(Uuid),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'Environment' });

// Ids in project paths are any string: one that names nothing the key may reach, malformed or
// not, is 404 (spec 4.9: "404 NOT_FOUND when missing or not accessible").
const PathId = Type.String({ minLength: 1 });
export const ProjectParams = Type.Object({ id: PathId });
/** The admin token may reach every project: an id that is not a UUID is 400 there, as on the other admin routes. */
export const AdminProjectParams = Type.Object({ id: Uuid });
export const ProjectEnvParams = Type.Object({ id: PathId, envId: PathId });
export const ProjectScheduleParams = Type.Object({ id: PathId, scheduleId: PathId });

export const UpdateEnvironmentBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 10000 })),
  },
  { additionalProperties: false },
);

export type ProjectDto = Type.Static<typeof Project>;
export type EnvironmentDto = Type.Static<typeof Environment>;
