// Reading sessions: a team's sessions and an automation's runs, paged by key; one session with
// its messages; the environment a session runs in when none is named.
import type { SessionDto } from '../../shared/schemas/index.js';
import { requireAutomation } from '../automations/service.js';
import { notFound } from '../errors.js';
import { keysetPage, type PageRequest, type PageResult } from '../http/pagination.js';
import type { ReadTx, Store } from '../store/store.js';
import type { SessionRow, SessionStatus } from '../store/tables.js';
import { DEFAULT_ENV_SLUG, findEnvironmentBySlug } from '../teams/service.js';
import { messageView, readSessionView, storedOnSession } from './view.js';

export interface ListSessionsFilter extends PageRequest {
  status?: SessionStatus;
  automation_id?: string;
}

/** The sessions an automation started, newest first. */
export async function listRuns(store: Store, teamId: string, automationId: string, page: Omit<ListSessionsFilter, 'automation_id'>) {
  await store.read((tx) => requireAutomation(tx, teamId, automationId));
  return listSessions(store, teamId, { ...page, automation_id: automationId });
}

/** The environment a session runs in when none is named: the team's `default`. */
export async function defaultEnvironmentId(store: Store, teamId: string): Promise<string | null> {
  return store.read(async (tx) => (await findEnvironmentBySlug(tx, teamId, DEFAULT_ENV_SLUG))?.id ?? null);
}

export async function listSessions(store: Store, teamId: string, filter: ListSessionsFilter): Promise<PageResult<SessionDto>> {
  // An automation's runs are read through its own index; the team's sessions through the team's.
  const where: Partial<SessionRow> = filter.automation_id
    ? { automation_id: filter.automation_id, team_id: teamId, status: filter.status }
    : { team_id: teamId, status: filter.status };
  return store.read((tx) =>
    keysetPage(
      filter,
      (start, limit) => tx.page('sessions', { where, ...start, limit }),
      (s) => s.session_id,
      (s) => readSessionView(tx, s),
    ),
  );
}

/** One session with its messages. */
export async function getSession(store: Store, teamId: string, sessionId: string) {
  return store.read(async (tx) => {
    const s = await requireSession(tx, teamId, sessionId);
    const messages = await tx.list('messages', { session_id: s.session_id });
    return { ...(await readSessionView(tx, s)), messages: [...storedOnSession(s), ...messages.map(messageView)] };
  });
}

export async function requireSession(tx: ReadTx, teamId: string, sessionId: string): Promise<SessionRow> {
  const s = await tx.get('sessions', sessionId);
  if (!s || s.team_id !== teamId) throw notFound('session');
  return s;
}
