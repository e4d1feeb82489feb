// GET /metrics (CONTRACT §11): the one answer that is not JSON.
import Type from 'typebox';

/** The media type of the answer's body, as Prometheus scrapes it. */
export const METRICS_MEDIA_TYPE = 'text/plain';

export const MetricsText = Type.String({
  description: "Prometheus text exposition format 0.0.4 (Content-Type: text/plain; version=0.0.4; charset=utf-8): every series of this daemon, each labelled svc_instance with the daemon's id (docs/api.md, Metrics)",
});

/** The 200 answer of GET /metrics, as a route schema declares a body of another type than JSON. */
export const MetricsResponse = {
  description: 'the metrics of this daemon',
  content: { [METRICS_MEDIA_TYPE]: { schema: MetricsText } },
};
