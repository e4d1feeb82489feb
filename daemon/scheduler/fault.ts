// Fault injection for the crash tests: `SVC_FAULT=crash-after-lease` kills the daemon with
// SIGKILL right after a slot's lease is durable, `crash-after-start` right after its session
// started, so a test can restart the daemon and check that the slot still starts one session.
// Only the scheduler reads this variable.

export type FaultPoint = 'after-lease' | 'after-start';
export type FaultHook = (point: FaultPoint) => void;

const CRASH_POINTS: Record<string, FaultPoint> = {
  'crash-after-lease': 'after-lease',
  'crash-after-start': 'after-start',
};

export function faultFromEnv(env: NodeJS.ProcessEnv = process.env): FaultHook | undefined {
  const point = env.SVC_FAULT ? CRASH_POINTS[env.SVC_FAULT] : undefined;
  if (!point) return undefined;
  return (at) => {
    if (at === point) process.kill(process.pid, 'SIGKILL');
  };
}
