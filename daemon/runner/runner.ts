// What the session service hands a runner, and what a runner answers. A runner executes turns:
// the first turn of a session is its prompt, each follow-up is another turn.
import type { SessionDto } from '../../shared/schemas/index.js';
import type { RunnerKind } from '../config.js';

export type { RunnerKind };

/** One turn, as the runner sees it (and as exec's stdin and webhook's body carry it). */
export interface Turn {
  session: SessionDto;
  /** the session's original prompt */
  prompt: string;
  /** this turn's user message: the prompt on the first turn, the follow-up after */
  message: string;
  event: Record<string, unknown> | null;
}

/** How a hand-over ended: the runner took the turn and works on it, or already finished it. */
export type HandOver = { state: 'running' } | { state: 'completed'; message: string };

/** Where a runner reports turns it finishes after the hand-over. */
export interface TurnReporter {
  /** `message` is the assistant's answer ('' when there was none) */
  turnCompleted(sessionId: string, message: string): Promise<void>;
  /** `error` is safe to store and show: no env values, no secrets */
  /**
   * `interrupted`: the daemon itself ended the turn (it was stopping), so the failure says nothing
   * about the automation and does not count towards disabling it.
   */
  turnFailed(sessionId: string, error: string, output?: string, interrupted?: boolean): Promise<void>;
}

/** The runner could not take the turn; the message is safe to show a client. */
export class RunnerRefused extends Error {}

export interface Runner {
  readonly kind: RunnerKind;
  /**
   * Whether this runner reports each turn's outcome later (exec). When it does not (webhook), an
   * accepted hand-over is the last the daemon hears of a turn that stays running.
   */
  readonly reportsOutcomes: boolean;
  /** Whether a turn this runner had running can survive the daemon process (webhook: yes). */
  readonly turnsOutliveDaemon: boolean;
  /** Prepares what the runner needs before its first turn (e.g. the webhook secret file). */
  init(): Promise<void>;
  /** Hands a turn over. Rejects with RunnerRefused when the runner cannot take it. */
  take(turn: Turn): Promise<HandOver>;
  /**
   * Only for a runner whose turns reach nothing outside the daemon and whose answer is known
   * without running anything (record): that answer, or undefined when new sessions must be handed
   * over after all. New sessions are then stored completed with it, in the write that creates
   * them, since there is nothing to hand over first.
   */
  answerAtOnce?(): string | undefined;
  /** Forgets turns of this session that have not started yet (the session failed); returns how many. */
  discard(sessionId: string): number;
  /** Ends running turns (reporting them failed) and refuses new ones. */
  stop(): Promise<void>;
}
