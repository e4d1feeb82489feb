// The most an automation may hold. The schemas (shared/schemas/automations.ts) declare these to
// the daemon's validation and the OpenAPI document; the CLI checks a file against them before it
// writes anything, so `apply` does not stop half-way on a 400. Plain numbers: the CLI loads no schema library.
export const AUTOMATION_LIMITS = {
  /** characters (code points) */
  nameChars: 200,
  /** characters (code points) */
  promptChars: 100000,
  triggers: 50,
} as const;
