// The admin API (CONTRACT §2): teams, their keys, projects and environments.
import Type from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.js';

export const TEAM_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
export const ENV_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]*$';

export const Team = Type.Object({
  id: Uuid,
  slug: Type.String(),
  name: Type.String(),
  execution_admitted: Type.Boolean(),
  created_at: Timestamp,
}, { title: 'Team' });

export const CreateTeamBody = Type.Object(
  {
    slug: Type.String({ pattern: TEAM_SLUG_PATTERN }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const UpdateTeamBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    execution_admitted: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const AdminTeamParams = Type.Object({ slug: Type.String({ minLength: 1 }) });

export const CreateKeyBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);

export const CreatedKey = Type.Object({
  id: Uuid,
  name: Nullable(Type.String()),
  key: Type.String(),
  prefix: Type.String(),
  created_at: Timestamp,
});

export const KeyInfo = Type.Object({
  id: Uuid,
  name: Nullable(Type.String()),
  prefix: Type.String(),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
});

export const KeyParams = Type.Object({ slug: Type.String({ minLength: 1 }), keyId: Uuid });

export const CreatedProjectKey = Type.Object({
  key: Type.String(),
  prefix: Type.String(),
  created_at: Timestamp,
});

export const CreateProjectBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 10000 })),
    availableTasks: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 })),
  },
  { additionalProperties: false },
);

export const CreateEnvironmentBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.String({ pattern: ENV_SLUG_PATTERN, maxLength: 63 }),
    description: Type.Optional(Type.String({ maxLength: 10000 })),
    project_id: Type.Optional(Nullable(Uuid)),
  },
  { additionalProperties: false },
);

export type TeamDto = Type.Static<typeof Team>;
export type KeyInfoDto = Type.Static<typeof KeyInfo>;
