// Schema 5: connections and their deliveries (CONTRACT §12), and a replay counter on receipts.
// A connection's name is unique in its team (by its folded key, as an automation's), and its
// (provider, external_id) across all teams: two teams cannot claim one GitHub installation, and the
// service-managed route finds the connection by that pair (the constraint's index). Rows without an
// external_id never collide (NULLs are distinct). Deliveries are read a connection's newest first
// (connection_id, ord), looked up by (connection_id, delivery_id) for duplicates, and deleted by
// retention through received_at, like receipts.
//
// `replays` is nullable without a default: adding it rewrites no receipt, and a receipt never
// replayed reads as in the JSON-file store (the field absent); an increment counts it from 0.
export const sql = `
CREATE TABLE connections (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL,
  provider text NOT NULL,
  name text NOT NULL,
  name_key text NOT NULL,
  external_id text,
  sealed_secret text NOT NULL,
  secret_prefix text NOT NULL,
  previous_sealed_secret text,
  previous_valid_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  last_delivery_at timestamptz,
  CONSTRAINT connections__team_id__name_key__key UNIQUE (team_id, name_key),
  CONSTRAINT connections__provider__external_id__key UNIQUE (provider, external_id)
);
CREATE INDEX connections__ord ON connections (ord);
CREATE INDEX connections__team_id ON connections (team_id, ord);

CREATE TABLE deliveries (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  connection_id uuid NOT NULL,
  team_id uuid NOT NULL,
  received_at timestamptz NOT NULL,
  delivery_id text,
  event_type text,
  status text NOT NULL,
  reason text NOT NULL,
  event_id text
);
CREATE INDEX deliveries__ord ON deliveries (ord);
CREATE INDEX deliveries__connection_id ON deliveries (connection_id, ord);
CREATE INDEX deliveries__connection_id__delivery_id ON deliveries (connection_id, delivery_id, ord) WHERE delivery_id IS NOT NULL;
CREATE INDEX deliveries__received_at ON deliveries (received_at);

ALTER TABLE events ADD COLUMN replays integer;
`;
