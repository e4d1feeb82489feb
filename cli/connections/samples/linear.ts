// Linear webhook payloads, after Linear's documented shape ("Webhooks" in the Linear developer
// docs): what `svc connections test` sends for a linear connection, keyed by event type.
// `webhookTimestamp` is set when the delivery is signed.
const team = { id: '72b2a2dc-6f4f-4423-9d34-24b5bd10634a', key: 'ENG', name: 'Engineering' };
const actor = { id: '2e6eea91-1111-0000-9486-acea0603064d', type: 'user', name: 'Jane Doe', email: 'jane@example.com' };

const issue = (action: string, extra: Record<string, unknown> = {}) => ({
  action,
  actor,
  createdAt: '2026-03-05T10:12:41.000Z',
  type: 'Issue',
  url: 'https://linear.app/example/issue/ENG-123/login-button-does-nothing-on-safari',
  organizationId: '5f2d8a8c-3a52-4c31-9b1b-6a0b3e2b0d6f',
  webhookId: '000042e3-d123-4980-b49f-8e140eef9329',
  webhookTimestamp: 0,
  data: {
    id: '9c1d8a3e-5a52-4f0e-9b4e-0c3f6f6f1f2a',
    identifier: 'ENG-123',
    number: 123,
    title: 'Login button does nothing on Safari',
    description: 'Clicking "Log in" on Safari 17 does nothing; Chrome works.',
    priority: 2,
    priorityLabel: 'High',
    createdAt: '2026-03-05T10:12:41.000Z',
    updatedAt: '2026-03-05T10:12:41.000Z',
    teamId: team.id,
    team,
    stateId: 'b6e2a1f0-0000-4000-8000-000000000001',
    state: { id: 'b6e2a1f0-0000-4000-8000-000000000001', name: 'Todo', type: 'unstarted', color: '#e2e2e2' },
    labelIds: [],
    labels: [],
    url: 'https://linear.app/example/issue/ENG-123/login-button-does-nothing-on-safari',
    ...extra,
  },
});

export const linearSamples: Record<string, Record<string, unknown>> = {
  'issue.create': issue('create'),
  'issue.update': {
    ...issue('update', { state: { id: 'b6e2a1f0-0000-4000-8000-000000000002', name: 'In Progress', type: 'started', color: '#f2c94c' } }),
    updatedFrom: { stateId: 'b6e2a1f0-0000-4000-8000-000000000001', updatedAt: '2026-03-05T10:12:41.000Z' },
  },
  'comment.create': {
    action: 'create',
    actor,
    createdAt: '2026-03-05T11:02:00.000Z',
    type: 'Comment',
    url: 'https://linear.app/example/issue/ENG-123#comment-4b1f',
    organizationId: '5f2d8a8c-3a52-4c31-9b1b-6a0b3e2b0d6f',
    webhookId: '000042e3-d123-4980-b49f-8e140eef9329',
    webhookTimestamp: 0,
    data: {
      id: '4b1f0c2e-7d0a-4a5e-8f3b-2c6d9e1a0b7c',
      body: 'Reproduced on Safari 17.3 as well.',
      issueId: '9c1d8a3e-5a52-4f0e-9b4e-0c3f6f6f1f2a',
      issue: { id: '9c1d8a3e-5a52-4f0e-9b4e-0c3f6f6f1f2a', identifier: 'ENG-123', title: 'Login button does nothing on Safari' },
      userId: actor.id,
      createdAt: '2026-03-05T11:02:00.000Z',
      updatedAt: '2026-03-05T11:02:00.000Z',
    },
  },
};
