// The idempotency key of a schedule slot (CONTRACT §5): `schedule:{triggerId}:{slot}`.

export function scheduleKey(triggerId: string, slot: Date): string {
  return `schedule:${triggerId}:${slot.toISOString()}`;
}

/** The slot (ISO time) of a scheduleKey, or undefined for any other key. */
export function slotOfScheduleKey(key: string): string | undefined {
  return /^schedule:[^:]+:(.+)$/.exec(key)?.[1];
}
