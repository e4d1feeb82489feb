// Schema 3: which daemon holds each live session (CONTRACT §11). Daemons sharing the database
// renew a row of `instances` while they run; a session's `claimed_by` names the one whose process
// holds its turns, and `turns_in_flight` counts the turns some daemon will still record, so a
// session completes with its last turn whichever daemon ran it (sessions/recovery.ts).
// Numbered 3: another branch adds 2 at the same time.
//
// The new columns are nullable without a default: adding them rewrites no row, and rows written
// before read as they do in the JSON-file store (fields absent). Only live sessions with a claim
// enter the index: a recovery looks up a dead daemon's queued and running sessions, never others.
export const sql = `
CREATE TABLE instances (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id text PRIMARY KEY,
  started_at timestamptz NOT NULL,
  alive_until timestamptz NOT NULL
);
CREATE INDEX instances__ord ON instances (ord);

ALTER TABLE sessions ADD COLUMN claimed_by text, ADD COLUMN turns_in_flight integer;
CREATE INDEX sessions__claimed_by ON sessions (claimed_by, ord) WHERE status IN ('queued', 'running');
`;
