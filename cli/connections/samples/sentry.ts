// Sentry integration webhook payloads, after Sentry's documented shape ("Integration Platform:
// Webhooks" in the Sentry docs): what `svc connections test` sends for a sentry connection, keyed
// by event type (`Sentry-Hook-Resource` plus the body's `action`).
const installation = { uuid: '7a485448-a9e2-4c85-8a3c-4f44175783c9' };
const actor = { type: 'application', id: 'sentry', name: 'Sentry' };

const issue = (action: string, status: string) => ({
  action,
  installation,
  actor,
  data: {
    issue: {
      id: '1170820242',
      shortId: 'ACME-WEB-3F',
      title: "TypeError: Cannot read properties of undefined (reading 'id')",
      culprit: 'app/routes/login.tsx in handleSubmit',
      level: 'error',
      status,
      platform: 'javascript',
      project: { id: '1', name: 'acme-web', slug: 'acme-web', platform: 'javascript' },
      permalink: 'https://acme.sentry.io/issues/1170820242/',
      web_url: 'https://acme.sentry.io/issues/1170820242/',
      firstSeen: '2026-03-05T10:12:41.000Z',
      lastSeen: '2026-03-05T10:12:41.000Z',
      count: '1',
      userCount: 1,
      metadata: { type: 'TypeError', value: "Cannot read properties of undefined (reading 'id')", filename: 'app/routes/login.tsx' },
    },
  },
});

export const sentrySamples: Record<string, Record<string, unknown>> = {
  'issue.created': issue('created', 'unresolved'),
  'issue.resolved': issue('resolved', 'resolved'),
  'event_alert.triggered': {
    action: 'triggered',
    installation,
    actor,
    data: {
      event: {
        event_id: 'a7c6bd3e1c7b4d6f9a1e2b3c4d5e6f70',
        title: "TypeError: Cannot read properties of undefined (reading 'id')",
        level: 'error',
        project: 1,
        issue_id: '1170820242',
        web_url: 'https://acme.sentry.io/issues/1170820242/events/a7c6bd3e1c7b4d6f9a1e2b3c4d5e6f70/',
        url: 'https://sentry.io/api/0/projects/acme/acme-web/events/a7c6bd3e1c7b4d6f9a1e2b3c4d5e6f70/',
        timestamp: 1772705561.0,
      },
      triggered_rule: 'Send a notification for new issues',
    },
  },
};
