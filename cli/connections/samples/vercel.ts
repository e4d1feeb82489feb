// Vercel webhook payloads, after Vercel's documented shape ("Webhooks API reference" in the
// Vercel docs): what `svc connections test` sends for a vercel connection, keyed by event type.
// `id` is set to the delivery id when the delivery is signed.
const deployment = (type: string, extra: Record<string, unknown> = {}) => ({
  id: 'uwhk_sample',
  type,
  createdAt: 1772705561000,
  region: 'iad1',
  payload: {
    team: { id: 'team_1a2b3c4d5e6f7g8h9i0j' },
    user: { id: 'WhkUsr1a2b3c4d5e6f7g8h9i' },
    deployment: {
      id: 'dpl_2xWqEyJh8Fb5nPkz3Lm4Rt6Vs',
      meta: { githubCommitRef: 'main', githubCommitSha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7', githubCommitMessage: 'fixed readme' },
      url: 'acme-web-2xwqeyjh8.vercel.app',
      name: 'acme-web',
    },
    links: {
      deployment: 'https://vercel.com/acme/acme-web/2xWqEyJh8Fb5nPkz3Lm4Rt6Vs',
      project: 'https://vercel.com/acme/acme-web',
    },
    target: 'production',
    project: { id: 'prj_8Fb5nPkz3Lm4Rt6Vs2xWqEyJh' },
    plan: 'pro',
    regions: ['iad1'],
    ...extra,
  },
});

export const vercelSamples: Record<string, Record<string, unknown>> = {
  'deployment.created': deployment('deployment.created'),
  'deployment.succeeded': deployment('deployment.succeeded'),
  'deployment.error': deployment('deployment.error'),
};
