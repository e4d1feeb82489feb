// Whether a team may start or resume session execution: decided in the transaction that would
// store the work, so an admission withdrawn meanwhile is seen.
import { ApiError, notFound } from '../errors.js';
import type { ReadTx } from '../store/store.js';

const notAdmitted = () =>
  new ApiError('EXECUTION_DENIED', 'this team is not admitted to start or resume session execution; an admin can admit it');

/** 402 EXECUTION_DENIED unless the team may start or resume work (404 when there is no such team). */
export async function requireAdmitted(tx: ReadTx, teamId: string): Promise<void> {
  const team = await tx.get('teams', teamId);
  if (!team) throw notFound('team');
  if (!team.execution_admitted) throw notAdmitted();
}
