// Follow-up turns (CONTRACT §3, spec 4.2): a user message published to a root session, handed to
// the runner as one more turn. A refused follow-up leaves no trace (see HandOvers.unpublish). Any
// daemon takes a follow-up, whichever started the session: the write that publishes it counts the
// turn on the row and claims the session for this daemon, whose process now holds a turn of it;
// unless another daemon claims it with turns in flight: the claim stays with that daemon (its turns
// die with it, not with this one), and this turn is recorded as this daemon's (`session_turns`),
// so whichever of the two dies, a recovery drops exactly its turns (sessions/recovery.ts).
import type { Clock } from '../clock.js';
import { ApiError, conflict, invalid } from '../errors.js';
import type { HandOver } from '../runner/runner.js';
import type { Store } from '../store/store.js';
import type { SessionRow } from '../store/tables.js';
import { requireAdmitted } from './admission.js';
import { newId } from '../store/new-id.js';
import { messageRow, reasonOf, turnsOf, withTurns, type HandOvers } from './hand-over.js';
import { requireSession } from './reads.js';
import { ROOT_KIND, ROOT_PERSONA } from './start-batch.js';
import { sessionEvent } from './view.js';

export const MAX_FOLLOW_UP_CHARS = 10000;

/** Spec 4.2: publishes a follow-up turn to a running or completed root session. */
export async function followUp(
  { store, turns, clock }: { store: Store; turns: HandOvers; clock: Clock },
  teamId: string,
  sessionId: string,
  rawMessage: string,
): Promise<{ accepted: true; session_id: string }> {
  const content = rawMessage.trim();
  const prepared = await store.write(async (tx) => {
    const s = await requireSession(tx, teamId, sessionId);
    if (s.parent_session_id !== null || s.kind !== ROOT_KIND || s.persona !== ROOT_PERSONA) {
      throw invalid(
        `follow-ups go to root sessions of kind ${ROOT_KIND} and persona ${ROOT_PERSONA}; this session is ` +
          `${s.parent_session_id !== null ? 'a child session' : 'a root session'} of kind ${s.kind} and persona ${s.persona}`,
      );
    }
    const length = Array.from(content).length;
    if (length === 0) throw invalid('body.message must not be empty (leading and trailing whitespace is removed)');
    if (length > MAX_FOLLOW_UP_CHARS) {
      throw invalid(`body.message must be at most ${MAX_FOLLOW_UP_CHARS} characters after trimming (it has ${length})`);
    }
    if (s.status !== 'running' && s.status !== 'completed') {
      throw conflict(`the session is ${s.status}; follow-ups are accepted while it is running or completed`);
    }
    await requireAdmitted(tx, teamId);
    const now = clock().toISOString();
    const message = messageRow(s.session_id, 'user', content, now);
    tx.insert('messages', message);
    const claimant = s.claimed_by ?? null;
    const unclaimed = s.status === 'running' && turnsOf(s) > 0 && claimant !== null && claimant !== turns.instanceId;
    const turnRow = unclaimed ? newId() : undefined;
    if (turnRow) tx.insert('session_turns', { id: turnRow, session_id: s.session_id, instance_id: turns.instanceId, started_at: now });
    const claim: Partial<SessionRow> = unclaimed ? {} : { claimed_by: turns.instanceId };
    const running: SessionRow = await withTurns(tx, s, 1, { status: 'running', completed_at: null, updated_at: now, ...claim });
    return { before: s, running, message, event: await sessionEvent(tx, s), turnRow };
  });

  turns.track(sessionId);
  if (prepared.turnRow) turns.noteUnclaimedTurn(sessionId, prepared.turnRow);
  const watch = turns.turnOutcomes.watch(sessionId);
  let handOver: HandOver;
  try {
    handOver = await turns.runner.take(turns.turn(prepared.running, content, prepared.event, prepared.running.updated_at));
  } catch (err) {
    turns.logUnexpected(err);
    turns.untrack(sessionId);
    await turns.unpublish(prepared.before, prepared.message, await watch.latest());
    throw new ApiError('MESSAGE_PUBLISH_FAILED', `the runner could not take the message: ${reasonOf(err)}`);
  } finally {
    watch.end();
  }
  await turns.applyHandOver(sessionId, handOver);
  return { accepted: true, session_id: sessionId };
}
