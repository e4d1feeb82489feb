// The default runner: takes every turn and completes it at once without executing anything, so
// prompts, events and follow-ups can be tried offline and read back.
import type { HandOver, Runner } from './runner.js';

export const RECORDED_MESSAGE = 'recorded (record runner: nothing was executed)';

export class RecordRunner implements Runner {
  readonly kind = 'record' as const;
  readonly reportsOutcomes = true;
  readonly turnsOutliveDaemon = false;

  async init(): Promise<void> {}

  async take(): Promise<HandOver> {
    return { state: 'completed', message: RECORDED_MESSAGE };
  }

  answerAtOnce(): string | undefined {
    return RECORDED_MESSAGE;
  }

  discard(): number {
    return 0;
  }

  async stop(): Promise<void> {}
}
