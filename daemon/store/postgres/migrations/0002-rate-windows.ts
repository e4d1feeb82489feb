// Schema 2: the rate limits' window counters, shared by every daemon on the database (CONTRACT §11).
// UNLOGGED: a counter is bumped on every request, and writing each to the WAL would cost more than
// the request; a database crash empties the table, which only errs toward letting clients through.
// A row per bucket (a key id, an address) and window; old windows are deleted by rate-windows.ts,
// through the index on window_start.
export const sql = `
CREATE UNLOGGED TABLE rate_windows (
  bucket text NOT NULL,
  window_start timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_windows__window_start ON rate_windows (window_start);
`;
