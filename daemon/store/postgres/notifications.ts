// Store.publish and Store.subscribe on PostgreSQL: a message is a NOTIFY sent through the pool; the
// daemons hear it on one connection of their own each, kept only for LISTEN (a pooled connection
// would stop listening once handed back). That connection is made again whenever it drops or stops
// answering, and its return counts as a message on every topic, since any sent meanwhile were lost.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { StoreLogger } from '../logger.js';
import { STORE_TOPICS, type StoreTopic } from '../store.js';
import { LocalTopics } from '../topics.js';

const CHANNEL_PREFIX = 'svc_';
/** how long to wait before connecting again, after each failed attempt in a row */
const RECONNECT_DELAYS_MS = [100, 500, 1_000, 2_000, 5_000];
/** how often the listening connection is asked whether it still answers */
const PING_INTERVAL_MS = 10_000;

const channelOf = (topic: StoreTopic) => `${CHANNEL_PREFIX}${topic}`;

export interface PgNotificationsOptions {
  url: string;
  /** sends a NOTIFY (through the store's pool) */
  query(text: string, values: unknown[]): Promise<unknown>;
  logger: StoreLogger;
}

export class PgNotifications {
  private readonly topics = new LocalTopics();
  /** this store's messages carry it, so its own listeners, run at once, do not run again */
  private readonly origin = randomUUID();
  /** the listening connection, while it works, and how to give it up */
  private listening: { client: pg.Client; lose(): void } | undefined;
  /** failed connections in a row */
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: PgNotificationsOptions) {}

  /** Connects and listens; a failure is logged and tried again, as after a drop. */
  async start(): Promise<void> {
    await this.listen();
    this.pingTimer = setInterval(() => void this.ping(), PING_INTERVAL_MS);
    this.pingTimer.unref();
  }

  subscribe(topic: StoreTopic, listener: () => void): () => void {
    return this.topics.subscribe(topic, listener);
  }

  /** Runs this daemon's listeners now and tells the others; a NOTIFY that fails is only logged (see the scheduler's recheck). */
  async publish(topic: StoreTopic): Promise<void> {
    this.topics.emit(topic);
    try {
      await this.opts.query('SELECT pg_notify($1, $2)', [channelOf(topic), this.origin]);
    } catch (err) {
      this.opts.logger.warn({ err: { message: (err as Error).message }, topic }, 'could not tell the other daemons of a change; they see it at their next recheck');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const client = this.listening?.client;
    this.listening = undefined;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.opts.url, keepAlive: true, application_name: 'svc-listen' });
    let lost = false;
    const lose = () => {
      if (lost) return;
      lost = true;
      this.lost(client);
    };
    client.on('error', lose);
    client.on('end', lose);
    client.on('notification', (n) => {
      if (n.payload === this.origin) return;
      const topic = STORE_TOPICS.find((t) => channelOf(t) === n.channel);
      if (topic) this.topics.emit(topic);
    });
    try {
      await client.connect();
      for (const topic of STORE_TOPICS) await client.query(`LISTEN ${channelOf(topic)}`);
    } catch (err) {
      this.opts.logger.warn({ err: { message: (err as Error).message } }, 'could not listen for changes made by other daemons; trying again');
      lose();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listening = { client, lose };
    if (this.failures > 0) {
      this.failures = 0;
      this.opts.logger.info({}, 'listening for changes made by other daemons again');
      this.topics.emitAll();
    }
  }

  /** A connection failed (once per connection): it is closed, and another made after a pause. */
  private lost(client: pg.Client): void {
    if (this.listening?.client === client) this.listening = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.failures++, RECONNECT_DELAYS_MS.length - 1)];
    this.retryTimer = setTimeout(() => void this.listen(), delay);
    this.retryTimer.unref();
  }

  /** A connection whose server went away without a word answers no query: it is dropped too. */
  private async ping(): Promise<void> {
    const listening = this.listening;
    if (!listening) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer')), PING_INTERVAL_MS / 2)));
    try {
      await Promise.race([listening.client.query('SELECT 1'), timeout]);
    } catch {
      listening.lose();
    } finally {
      clearTimeout(timer);
    }
  }
}
