// Names a person types, turned into the ids the API takes: an automation by id or by name
// (case-insensitive, as the daemon keeps names unique); environments through lib/environment-ref.
import { automationNameKey } from '../../shared/automation-names.js';
import { type ApiClient, apiPath } from '../../shared/client.js';
import type { AutomationDto } from '../../shared/schemas/automations.js';
import { ApiFailure } from '../errors.js';
import { resolveEnvironmentId } from '../lib/environment-ref.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

export const automationsPath = (team: string) => apiPath`/teams/${team}/automations`;
export const automationPath = (team: string, id: string) => apiPath`/teams/${team}/automations/${id}`;

/** Every automation of the team, following next_cursor. */
export function listAllAutomations(client: ApiClient, team: string): Promise<AutomationDto[]> {
  return client.listAll<AutomationDto>(automationsPath(team), { limit: 200 });
}

/** The id of the automation `ref` names (an id is taken as is); 404 when no name matches. */
export async function resolveAutomationId(client: ApiClient, team: string, ref: string): Promise<string> {
  if (isUuid(ref)) return ref;
  const key = automationNameKey(ref);
  const found = (await listAllAutomations(client, team)).find((a) => automationNameKey(a.name) === key);
  // JSON-quoted: a name typed with a newline or a tab shows as one, not as a broken line.
  if (!found) throw new ApiFailure(404, 'NOT_FOUND', `no automation with id or name ${JSON.stringify(ref)} in team ${team}`);
  return found.id;
}

/** 404 (exit 4) unless the team has an automation with this id. */
export async function requireAutomation(client: ApiClient, team: string, id: string): Promise<void> {
  try {
    await client.get(apiPath`/teams/${team}/automations/${id}`);
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404) throw new ApiFailure(404, 'NOT_FOUND', `no automation with id ${id} in team ${team}, and no sessions that one started`);
    throw err;
  }
}

/** The team's `default` environment, where an automation without one runs. */
export async function defaultEnvironmentId(client: ApiClient, team: string): Promise<string | null> {
  const environments = await client.get<{ id: string; slug: string }[]>(apiPath`/teams/${team}/environments`);
  return environments.find((e) => e.slug === 'default')?.id ?? null;
}

/** The environment to send: --environment when given, else the file's environment_id, ids kept and slugs resolved. */
export async function environmentToSend(
  client: ApiClient,
  team: string,
  flag: string | undefined,
  fromFile: string | null | undefined,
): Promise<string | null | undefined> {
  const ref = flag ?? fromFile;
  if (typeof ref !== 'string') return ref;
  return resolveEnvironmentId(client, team, ref);
}
