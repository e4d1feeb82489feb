// Tests that need something of the machine (a Secret Service, tmux) skip, saying why, where it is
// missing, unless the run demands it: .ci/run sets SVC_TEST_KEYCHAIN=required and
// SVC_TEST_TERMINAL=required, as it installs both. `CI` alone demands nothing: CI services set it
// on machines that have neither.

export type Prerequisite = 'keychain' | 'terminal';

const VARIABLES: Record<Prerequisite, string> = { keychain: 'SVC_TEST_KEYCHAIN', terminal: 'SVC_TEST_TERMINAL' };

/** Whether this run must have `what` (a missing one then fails the run instead of skipping). */
export const isRequired = (what: Prerequisite): boolean => process.env[VARIABLES[what]] === 'required';

/** Fails when `what` is missing and required; otherwise warns that its tests are skipped. */
export function checkPrerequisite(what: Prerequisite, present: boolean, why: string): void {
  if (present) return;
  if (isRequired(what)) throw new Error(`${VARIABLES[what]}=required but ${why}`);
  console.warn(`${what} tests skipped: ${why}; .ci/run provides it`);
}
