// Standard Webhooks payloads (standardwebhooks.com: `{type, timestamp, data}`): what
// `svc connections test` sends for a standard connection, keyed by event type.
export const standardSamples: Record<string, Record<string, unknown>> = {
  'user.created': {
    type: 'user.created',
    timestamp: '2026-03-05T10:12:41.000Z',
    data: { id: 'usr_2xWqEyJh8Fb5nPkz', email: 'jane@example.com', name: 'Jane Doe' },
  },
  'invoice.paid': {
    type: 'invoice.paid',
    timestamp: '2026-03-05T10:12:41.000Z',
    data: { id: 'inv_8Fb5nPkz3Lm4Rt6V', customer_id: 'cus_3Lm4Rt6Vs2xWqEyJ', amount: 4900, currency: 'eur' },
  },
};
