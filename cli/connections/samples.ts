// STUB, to be replaced by branch i28-providers (the real one ships sample payloads per provider).
import type { ConnectionProvider } from '../../shared/schemas/connections.js';

const SAMPLES: Record<string, Record<string, () => Record<string, unknown>>> = {
  github: {
    'pull_request.opened': () => ({
      action: 'opened',
      number: 1,
      pull_request: { number: 1, title: 'Sample', base: { ref: 'main' }, head: { ref: 'feature' } },
      repository: { full_name: 'octo-org/octo-repo' },
    }),
    push: () => ({ ref: 'refs/heads/main', repository: { full_name: 'octo-org/octo-repo' } }),
  },
  gitlab: {
    'merge_request.open': () => ({ object_kind: 'merge_request', object_attributes: { action: 'open' }, project: { path_with_namespace: 'group/project' } }),
  },
};

export function sampleDelivery(provider: ConnectionProvider, eventType: string): Record<string, unknown> {
  const make = SAMPLES[provider]?.[eventType];
  if (!make) throw new Error(`no sample of ${provider} event ${eventType}; available: ${Object.keys(SAMPLES[provider] ?? {}).join(', ') || 'none'}`);
  return make();
}
