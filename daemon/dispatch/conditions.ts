// The sentences that say which condition kept an automation's trigger from matching an event.
// They name the automation, so a reason built from several of them stays readable.

const q = (s: string) => JSON.stringify(s);

export const conditionText = {
  provider: (name: string, expected: string, got: string) => `trigger of ${q(name)} listens to provider ${q(expected)}, not ${q(got)}`,
  /** the provider differs, and the event type too (only in letter case: see nearbyTriggers) */
  providerAndEventType: (name: string, expected: { provider: string; type: string }, got: { provider: string; type: string }) =>
    `trigger of ${q(name)} listens to provider ${q(expected.provider)}, not ${q(got.provider)}, and to event ${q(expected.type)}, not ${q(got.type)}`,
  eventType: (name: string, expected: string, got: string) => `trigger of ${q(name)} listens to event ${q(expected)}, not ${q(got)}`,
  automationStatus: (name: string, status: string) => `automation ${q(name)} is ${status}`,
  /** matched when judged, deleted before its session was stored */
  automationDeleted: (name: string) => `automation ${q(name)} was deleted`,
  triggerDisabled: (name: string) => `trigger of ${q(name)} is disabled`,
  connection: (name: string, expected: string, got: string | null) =>
    `trigger of ${q(name)} expects connection_id ${q(expected)} (got ${got === null ? 'none' : q(got)})`,
  /** `explanation` is the filter module's own line, e.g. `$.data.env equals "prod" was false (found "staging")` */
  filter: (name: string, explanation: string) => `trigger of ${q(name)}: filter ${explanation}`,
  filterError: (name: string, jsonPath: string, message: string) =>
    `trigger of ${q(name)}: filter ${jsonPath} could not be evaluated (${message})`,
};
