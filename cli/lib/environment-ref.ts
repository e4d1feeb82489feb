// `--environment` takes an environment's id or its slug; a slug is looked up among the team's
// environments, so people need not copy UUIDs around.
import { type ApiClient, apiPath } from '../../shared/client.js';
import type { EnvironmentDto } from '../../shared/schemas/projects.js';
import { InvalidInputError } from '../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function resolveEnvironmentId(client: ApiClient, team: string, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref;
  const envs = await client.get<EnvironmentDto[]>(apiPath`/teams/${team}/environments`);
  const found = envs.find((e) => e.slug === ref);
  if (!found) {
    const known = envs.map((e) => e.slug).join(', ');
    throw new InvalidInputError(`no environment '${ref}' in team ${team}${known ? ` (it has: ${known})` : ''}`);
  }
  return found.id;
}
