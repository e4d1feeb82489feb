// Schema 4: turns of a session in flight on a daemon that does not hold its claim (a follow-up
// handed over through another daemon while the claimant's turns ran). Each daemon's turns are
// then accounted for by the daemon that runs them: should it die, a recovery finds them by
// `instance_id` and drops them from the session's count (sessions/recovery.ts).
export const sql = `
CREATE TABLE session_turns (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id text PRIMARY KEY,
  session_id text NOT NULL,
  instance_id text NOT NULL,
  started_at timestamptz NOT NULL
);
CREATE INDEX session_turns__ord ON session_turns (ord);
CREATE INDEX session_turns__instance_id ON session_turns (instance_id, ord);
CREATE INDEX session_turns__session_id ON session_turns (session_id, ord);
`;
