// The sample payloads `svc connections test` sends: GitHub's real ones from
// @octokit/webhooks-examples (9 MB, read only when a github sample is asked for), and small ones
// of our own for the other providers, shaped after their documented payloads (samples/).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ConnectionProvider } from '../../shared/schemas/connections.js';
import { UsageError } from '../errors.js';
import { gitlabSamples } from './samples/gitlab.js';
import { linearSamples } from './samples/linear.js';
import { sentrySamples } from './samples/sentry.js';
import { slackSamples } from './samples/slack.js';
import { standardSamples } from './samples/standard.js';
import { vercelSamples } from './samples/vercel.js';

type Payload = Record<string, unknown>;

const OWN_SAMPLES: Readonly<Record<Exclude<ConnectionProvider, 'github'>, Record<string, Payload>>> = {
  gitlab: gitlabSamples,
  linear: linearSamples,
  vercel: vercelSamples,
  sentry: sentrySamples,
  slack: slackSamples,
  standard: standardSamples,
};

/** One GitHub event in @octokit/webhooks-examples: its name (`X-GitHub-Event`) and example bodies. */
interface GithubExamples {
  name: string;
  examples: Payload[];
}

async function githubExamples(): Promise<GithubExamples[]> {
  const path = createRequire(import.meta.url).resolve('@octokit/webhooks-examples');
  return JSON.parse(await readFile(path, 'utf8')) as GithubExamples[];
}

/** `push`, `pull_request.opened`: what svc's event type is for a GitHub example. */
const githubType = (name: string, example: Payload) => (typeof example.action === 'string' ? `${name}.${example.action}` : name);

/** The event types a sample ships for, sorted. */
export async function sampleEventTypes(provider: ConnectionProvider): Promise<string[]> {
  if (provider !== 'github') return Object.keys(OWN_SAMPLES[provider]).sort();
  const types = new Set<string>();
  for (const entry of await githubExamples()) for (const example of entry.examples) types.add(githubType(entry.name, example));
  return [...types].sort();
}

/**
 * A realistic payload of that provider event, a copy the caller may change; a UsageError naming
 * the event types there are samples for when there is none for this one.
 */
export async function sampleDelivery(provider: ConnectionProvider, eventType: string): Promise<Payload> {
  if (provider !== 'github') {
    const sample = OWN_SAMPLES[provider][eventType];
    if (sample) return structuredClone(sample);
    throw new UsageError(`no ${provider} sample for event "${eventType}": there are ${Object.keys(OWN_SAMPLES[provider]).sort().join(', ')}`);
  }
  const entries = await githubExamples();
  const name = eventType.split('.')[0];
  const entry = entries.find((e) => e.name === name);
  const example = entry?.examples.find((e) => githubType(entry.name, e) === eventType);
  if (entry && example) return structuredClone(example);
  if (entry) {
    const types = [...new Set(entry.examples.map((e) => githubType(entry.name, e)))].sort();
    throw new UsageError(`no github sample for event "${eventType}": for ${name} there are ${types.join(', ')}`);
  }
  const names = entries.map((e) => (e.examples.some((x) => typeof x.action === 'string') ? `${e.name}.ACTION` : e.name)).sort();
  throw new UsageError(`no github sample for event "${eventType}": there are ${names.join(', ')}`);
}
