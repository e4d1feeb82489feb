// Slack Events API payloads, after Slack's documented event_callback envelope: what
// `svc connections test` sends for a slack connection, keyed by event type (the inner
// `event.type`), plus the url_verification Slack sends when an app's Request URL is set.
// `event_id` is set to the delivery id when the delivery is signed.
const envelope = (event: Record<string, unknown>) => ({
  token: 'XXYYZZ',
  team_id: 'T0001ABCD',
  api_app_id: 'A0001ABCD',
  event,
  type: 'event_callback',
  event_id: 'Ev0001SAMPLE',
  event_time: 1772705561,
  authorizations: [{ enterprise_id: null, team_id: 'T0001ABCD', user_id: 'U0BOTUSER', is_bot: true, is_enterprise_install: false }],
  is_ext_shared_channel: false,
  event_context: '4-eyJldCI6ImFwcF9tZW50aW9uIiwidGlkIjoiVDAwMDFBQkNEIn0',
});

export const slackSamples: Record<string, Record<string, unknown>> = {
  app_mention: envelope({
    type: 'app_mention',
    user: 'U061F7AUR',
    text: '<@U0BOTUSER> can you summarise this thread?',
    ts: '1772705561.000200',
    channel: 'C0LAN2Q65',
    event_ts: '1772705561.000200',
  }),
  message: envelope({
    type: 'message',
    channel: 'C0LAN2Q65',
    user: 'U061F7AUR',
    text: 'Deploy to production is done.',
    ts: '1772705561.000300',
    event_ts: '1772705561.000300',
    channel_type: 'channel',
  }),
  url_verification: { token: 'XXYYZZ', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' },
};
