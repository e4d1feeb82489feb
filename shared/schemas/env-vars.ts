// Team environment variables (spec §2, §4.6-4.7; CONTRACT §7). Values go in, never come out.
import Type from 'typebox';
import { TeamSlug, Uuid } from './common.js';

import { ENV_VAR_NAME_PATTERN, MAX_ENV_VALUE_BYTES } from '../api-values.js';

export { ENV_VAR_NAME_PATTERN, MAX_ENV_VALUE_BYTES };

export const EnvVar = Type.Object({
  name: Type.String(),
  has_value: Type.Boolean(),
  is_secret: Type.Boolean(),
  environment_id: Uuid,
}, { title: 'EnvVar' });

export const EnvSelectorQuery = Type.Object(
  {
    environment_id: Type.Optional(Uuid),
    environment_slug: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  },
  { additionalProperties: false },
);

export const EnvVarParams = Type.Object({
  teamSlug: TeamSlug,
  name: Type.String({ pattern: ENV_VAR_NAME_PATTERN }),
});

export const PutEnvVarBody = Type.Object(
  {
    // No maxLength: it counts characters, so the answer to a long ASCII value would speak of
    // characters and one of a long non-ASCII value of bytes. The daemon checks the bytes alone.
    value: Type.String({ description: `at most ${MAX_ENV_VALUE_BYTES} bytes of UTF-8` }),
    is_secret: Type.Optional(Type.Boolean()),
    environment_id: Type.Optional(Uuid),
    environment_slug: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  },
  { additionalProperties: false },
);

export type EnvVarDto = Type.Static<typeof EnvVar>;
