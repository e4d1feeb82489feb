// Connections (CONTRACT §12): a team's link to one account of a provider, the secret its deliveries
// are signed with (sealed at rest, shown once), and the log of what each delivery came to. The
// delivery route (daemon/providers/) finds a connection and its secrets here and records here what
// each delivery came to; the team routes manage connections.
import {
  PREVIOUS_SECRET_GRACE_MS,
  type ConnectionDto,
  type ConnectionProvider,
  type ConnectionWithSecretDto,
  type CreateConnectionInput,
  type DeliveryDto,
  type DeliveryStatus,
  type RotateSecretInput,
} from '../../shared/schemas/connections.js';
import { automationNameKey } from '../../shared/automation-names.js';
import type { Clock } from '../clock.js';
import { conflict, notFound } from '../errors.js';
import { keysetPage, type PageRequest, type PageResult } from '../http/pagination.js';
import type { Sealer } from '../secrets/sealer.js';
import { newId } from '../store/new-id.js';
import { UniqueViolation, type ReadTx, type Store, type WriteTx } from '../store/store.js';
import type { ConnectionRow, DeliveryRow, TeamRow } from '../store/tables.js';
import { requireOneLineName } from '../text-checks.js';
import { checkProvidedSecret, connectionSealContext, newSecret, secretPrefix } from './secrets.js';
import { connectionView, deliveryView } from './view.js';

/** A connection a delivery is for, its team, and the secrets that verify it (current first). */
export interface DeliveryTarget {
  connection: ConnectionRow;
  team: TeamRow;
  /** the current secret, then the previous one while its grace lasts: plain text, for the verifier only */
  secrets: string[];
}

/** What a delivery came to, as the delivery route records it. */
export interface DeliveryRecord {
  delivery_id: string | null;
  event_type: string | null;
  status: DeliveryStatus;
  reason: string;
  event_id: string | null;
  /** when the delivery arrived (default: now, by the daemon's clock) */
  received_at?: string;
}

export async function requireConnection(tx: ReadTx, teamId: string, id: string): Promise<ConnectionRow> {
  const c = await tx.get('connections', id);
  if (!c || c.team_id !== teamId) throw notFound('connection');
  return c;
}

export class ConnectionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sealer: Sealer,
  ) {}

  /** A new connection, with its secret: the one time it is shown. */
  async create(teamId: string, input: CreateConnectionInput, apiBase: string): Promise<ConnectionWithSecretDto> {
    requireOneLineName(input.name);
    const externalId = input.external_id ?? null;
    if (externalId !== null) requireOneLineName(externalId, 'body.external_id');
    if (input.secret !== undefined) checkProvidedSecret(input.provider, input.secret);
    const secret = input.secret ?? newSecret(input.provider);
    const id = newId();
    const at = this.clock().toISOString();
    const row: ConnectionRow = {
      id,
      team_id: teamId,
      provider: input.provider,
      name: input.name,
      name_key: automationNameKey(input.name),
      external_id: externalId,
      sealed_secret: this.sealer.seal(secret, connectionSealContext(id)),
      secret_prefix: secretPrefix(secret),
      previous_sealed_secret: null,
      previous_valid_until: null,
      created_at: at,
      updated_at: at,
      last_delivery_at: null,
    };
    // The store keeps the name and (provider, external_id) unique; writeUnique says which was taken.
    await this.writeUnique(row, (tx) => tx.insert('connections', row));
    return { ...connectionView(row, apiBase), secret };
  }

  /** The team's connections, newest first. */
  async list(teamId: string, apiBase: string, page: PageRequest): Promise<PageResult<ConnectionDto>> {
    return this.store.read((tx) =>
      keysetPage(
        page,
        (start, limit) => tx.page('connections', { where: { team_id: teamId }, ...start, limit }),
        (c) => c.id,
        (c) => connectionView(c, apiBase),
      ),
    );
  }

  async get(teamId: string, id: string, apiBase: string): Promise<ConnectionDto> {
    return connectionView(await this.store.read((tx) => requireConnection(tx, teamId, id)), apiBase);
  }

  /**
   * A new secret (the provider's, or a random one), shown once. `keep` (the default): the one it
   * replaces still verifies for PREVIOUS_SECRET_GRACE_MS, while the provider's settings are
   * changed; `revoke`: it stops at once. Only the latest previous secret is kept.
   */
  async rotateSecret(teamId: string, id: string, input: RotateSecretInput, apiBase: string): Promise<ConnectionWithSecretDto> {
    const now = this.clock();
    const { row, secret } = await this.store.write(async (tx) => {
      const current = await requireConnection(tx, teamId, id);
      if (input.secret !== undefined) checkProvidedSecret(current.provider, input.secret);
      const secret = input.secret ?? newSecret(current.provider);
      const keep = (input.previous ?? 'keep') === 'keep';
      const row: ConnectionRow = {
        ...current,
        sealed_secret: this.sealer.seal(secret, connectionSealContext(current.id)),
        secret_prefix: secretPrefix(secret),
        previous_sealed_secret: keep ? current.sealed_secret : null,
        previous_valid_until: keep ? new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString() : null,
        updated_at: now.toISOString(),
      };
      tx.put('connections', row);
      return { row, secret };
    });
    return { ...connectionView(row, apiBase), secret };
  }

  /**
   * Removes the connection: its deliveries answer 404 from then on. Its delivery log is left to
   * retention (it ages out with the receipts), so a delete is one small write however many
   * deliveries the connection had.
   */
  async delete(teamId: string, id: string): Promise<{ success: true }> {
    await this.store.write(async (tx) => {
      await requireConnection(tx, teamId, id);
      tx.delete('connections', id);
    });
    return { success: true };
  }

  /** The connection's deliveries, newest first, rejected ones too. */
  async deliveries(teamId: string, id: string, page: PageRequest): Promise<PageResult<DeliveryDto>> {
    return this.store.read(async (tx) => {
      await requireConnection(tx, teamId, id);
      return keysetPage(
        page,
        (start, limit) => tx.page('deliveries', { where: { connection_id: id }, ...start, limit }),
        (d) => d.id,
        deliveryView,
      );
    });
  }

  /** The connection a delivery to `/hooks/{connectionId}` is for; undefined for an unknown, deleted or malformed id. */
  async forDelivery(connectionId: string): Promise<DeliveryTarget | undefined> {
    return this.targetOf((tx) => tx.get('connections', connectionId));
  }

  /** The connection claiming the provider's account or installation `externalId` (the service-managed GitHub route). */
  async forInstallation(provider: ConnectionProvider, externalId: string): Promise<DeliveryTarget | undefined> {
    return this.targetOf(async (tx) => (await tx.list('connections', { provider, external_id: externalId }))[0]);
  }

  /** The connection `find` reads, with its team and the secrets that verify now; undefined when either is gone. */
  private async targetOf(find: (tx: ReadTx) => Promise<ConnectionRow | undefined>): Promise<DeliveryTarget | undefined> {
    const found = await this.store.read(async (tx) => {
      const connection = await find(tx);
      const team = connection && (await tx.get('teams', connection.team_id));
      return connection && team ? { connection, team } : undefined;
    });
    return found && { ...found, secrets: this.secretsOf(found.connection) };
  }

  /**
   * Logs a delivery and moves the connection's last_delivery_at, in one write. A connection
   * deleted meanwhile keeps the log row (retention drops it), and has no time to move.
   */
  async recordDelivery(connection: ConnectionRow, record: DeliveryRecord): Promise<DeliveryDto> {
    const received_at = record.received_at ?? this.clock().toISOString();
    const row: DeliveryRow = {
      id: newId(),
      connection_id: connection.id,
      team_id: connection.team_id,
      received_at,
      delivery_id: record.delivery_id,
      event_type: record.event_type,
      status: record.status,
      reason: record.reason,
      event_id: record.event_id,
    };
    await this.store.write(async (tx) => {
      tx.insert('deliveries', row);
      const current = await tx.get('connections', connection.id);
      if (current && (current.last_delivery_at === null || new Date(current.last_delivery_at) < new Date(received_at))) {
        await tx.update('connections', current.id, { last_delivery_at: received_at });
      }
    });
    return deliveryView(row);
  }

  /** Whether an earlier delivery to the connection with this id was accepted (or found a duplicate): a redelivery. */
  async seenDelivery(connectionId: string, deliveryId: string): Promise<boolean> {
    const rows = await this.store.read((tx) => tx.list('deliveries', { delivery_id: deliveryId, connection_id: connectionId }));
    return rows.some((d) => d.status !== 'rejected');
  }

  /** The plain secrets that verify a delivery now: the current one, then the previous one within its grace. */
  private secretsOf(c: ConnectionRow): string[] {
    const context = connectionSealContext(c.id);
    const secrets = [this.sealer.open(c.sealed_secret, context)];
    if (c.previous_sealed_secret !== null && c.previous_valid_until !== null && this.clock().getTime() < Date.parse(c.previous_valid_until)) {
      secrets.push(this.sealer.open(c.previous_sealed_secret, context));
    }
    return secrets;
  }

  /** A write that adds `row`: its name or (provider, external_id) taken meanwhile is 409 too. */
  private async writeUnique(row: ConnectionRow, fn: (tx: WriteTx) => void): Promise<void> {
    try {
      await this.store.write(fn);
    } catch (err) {
      if (!(err instanceof UniqueViolation) || err.table !== 'connections') throw err;
      throw err.fields.includes('external_id') ? externalIdTaken(row.provider, row.external_id ?? '') : nameTaken(row.name);
    }
  }
}

const nameTaken = (name: string) => conflict(`a connection named "${name}" already exists in this team`);
const externalIdTaken = (provider: string, externalId: string) =>
  conflict(`a ${provider} connection with external_id "${externalId}" already exists (in this team or another): an account or installation can be connected once`);
