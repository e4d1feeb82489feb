// `--env SLUG` / `--env-id ID`: which environment of the team an env-var command addresses.
import { type OptionDefinition } from '../command.js';

export interface EnvSelectorOptions {
  env?: string;
  envId?: string;
}

export const ENV_SELECTOR_OPTIONS: readonly OptionDefinition[] = [
  { flags: '--env <slug>', description: 'the environment, by slug', conflicts: ['envId'] },
  { flags: '--env-id <id>', description: 'the environment, by id', conflicts: ['env'] },
];

/** The daemon's query selector; an id wins over a slug there too, but both are refused here. */
export function envSelectorQuery(opts: EnvSelectorOptions): { environment_id?: string; environment_slug?: string } {
  if (opts.envId) return { environment_id: opts.envId };
  if (opts.env) return { environment_slug: opts.env };
  return {};
}

/** How the chosen environment reads in a message. */
export function envLabel(opts: EnvSelectorOptions): string {
  if (opts.envId) return `environment ${opts.envId}`;
  return `environment ${opts.env ?? 'default'}`;
}
