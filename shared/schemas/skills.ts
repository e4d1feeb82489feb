// Skill scans (spec §4.1; CONTRACT §8).
import Type from 'typebox';

export const ScanBody = Type.Object(
  {
    repository: Type.String({ format: 'uri', maxLength: 2000 }),
    ref: Type.String({ minLength: 1, maxLength: 1000, description: 'a branch or tag name valid under git check-ref-format' }),
  },
  { additionalProperties: false },
);

export const Skill = Type.Object({
  path: Type.String(),
  name: Type.String(),
  description: Type.String(),
  sizeBytes: Type.Integer({ minimum: 0, maximum: 131072 }),
});

export const SkippedFile = Type.Object({ path: Type.String(), reason: Type.String() });

export const ScanResult = Type.Object({
  repository: Type.String(),
  ref: Type.String(),
  commit: Type.String({ pattern: '^[0-9a-f]{40}$' }),
  skills: Type.Array(Skill),
  skipped: Type.Array(SkippedFile),
}, { title: 'ScanResult' });

export type ScanResultDto = Type.Static<typeof ScanResult>;
