/** The daemon's one source of time, injectable so scheduler and tests agree on "now". */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
export const iso = (clock: Clock) => clock().toISOString();
