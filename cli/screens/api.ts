// Everything the screens ask of the daemon, as typed calls on one team. Components never build
// paths or bodies themselves, so they stay presentational and these calls are the one place to
// change when a route does.
import { ApiFailure, ConnectionFailure } from '../../shared/api-failure.js';
import { type ApiClient, apiPath, connectionsClient } from '../../shared/client.js';
import { type AutomationDto, type CreateAutomationInput } from '../../shared/schemas/automations.js';
import { type ConnectionDto, type ConnectionWithSecretDto, type CreateConnectionInput, type DeliveryDto } from '../../shared/schemas/connections.js';
import { type EnvVarDto } from '../../shared/schemas/env-vars.js';
import { type EventResultDto, type NormalisedEventDto, type SendEventInput } from '../../shared/schemas/events.js';
import { type MessageDto, type SessionDto } from '../../shared/schemas/sessions.js';
import { type ScanResultDto } from '../../shared/schemas/skills.js';

export type { AutomationDto, ConnectionDto, ConnectionWithSecretDto, DeliveryDto, EnvVarDto, EventResultDto, MessageDto, ScanResultDto, SessionDto };

export type ReceivedEventDto = NormalisedEventDto & Pick<EventResultDto, 'accepted' | 'dispatched' | 'reason'>;
export type SessionWithMessagesDto = SessionDto & { messages: MessageDto[] };

export interface EnvironmentDto {
  id: string;
  slug: string;
  name: string;
  project_id: string | null;
}

export interface ScreensApi {
  readonly team: string;
  health(): Promise<{ status: string; version: string }>;
  listAutomations(): Promise<AutomationDto[]>;
  getAutomation(id: string): Promise<AutomationDto>;
  createAutomation(body: CreateAutomationInput): Promise<AutomationDto>;
  setAutomationStatus(id: string, status: 'active' | 'paused'): Promise<AutomationDto>;
  runAutomation(id: string): Promise<SessionDto>;
  deleteAutomation(id: string): Promise<void>;
  listRuns(automationId: string, limit: number): Promise<SessionDto[]>;
  sendEvent(body: SendEventInput, options: { dryRun: boolean }): Promise<EventResultDto>;
  listEvents(limit: number): Promise<ReceivedEventDto[]>;
  scanSkills(repository: string, ref: string): Promise<ScanResultDto>;
  listEnvironments(): Promise<EnvironmentDto[]>;
  listEnvVars(): Promise<EnvVarDto[]>;
  setEnvVar(input: { name: string; value: string; isSecret: boolean; environmentId: string }): Promise<EnvVarDto>;
  unsetEnvVar(name: string, environmentId: string): Promise<void>;
  listSessions(query: { status?: string; limit: number }): Promise<SessionDto[]>;
  getSession(id: string): Promise<SessionWithMessagesDto>;
  followUp(sessionId: string, message: string): Promise<void>;
  listConnections(): Promise<ConnectionDto[]>;
  getConnection(id: string): Promise<ConnectionDto>;
  createConnection(body: CreateConnectionInput): Promise<ConnectionWithSecretDto>;
  listDeliveries(connectionId: string, limit: number): Promise<DeliveryDto[]>;
}

/** Rows per page of the automation list: one request each. */
export const AUTOMATIONS_PAGE = 200;

/**
 * How often to reload a list of `rows` automations: each page is one request against the key's
 * rate limit (60 a minute by default), so a team of 1,000 reloads every 30 s, not every 5 s,
 * and leaves the key room for the commands typed in another terminal.
 */
export function automationsRefreshMs(baseMs: number, rows: number): number {
  return baseMs * Math.max(1, Math.ceil((rows + 1) / AUTOMATIONS_PAGE));
}

/** What a request said of the connection: answered, not answered, or answered 401 (the key is refused). */
export type ConnectionReport = 'ok' | 'lost' | 'refused';

export interface ScreensApiOptions {
  /**
   * told after every request what it said of the connection (for the header); `keyed` is false
   * for /health, which takes no key and so cannot say whether the daemon takes this one
   */
  onConnection?: (report: ConnectionReport, keyed: boolean) => void;
}

export function createScreensApi(client: ApiClient, team: string, options: ScreensApiOptions = {}): ScreensApi {
  const call = async <T>(fn: () => Promise<T>, keyed = true): Promise<T> => {
    try {
      const result = await fn();
      options.onConnection?.('ok', keyed);
      return result;
    } catch (err) {
      const report = err instanceof ConnectionFailure ? 'lost' : err instanceof ApiFailure && err.status === 401 ? 'refused' : 'ok';
      options.onConnection?.(report, keyed);
      throw err;
    }
  };
  const t = (path: string) => apiPath`/teams/${team}` + path;
  const automation = (id: string) => t(apiPath`/automations/${id}`);
  const connections = connectionsClient(client, team);

  return {
    team,
    health: () => call(() => client.get('/health'), false),
    listAutomations: () => call(() => client.listAll<AutomationDto>(t('/automations'), { limit: AUTOMATIONS_PAGE })),
    getAutomation: (id) => call(() => client.get<AutomationDto>(automation(id))),
    createAutomation: (body) => call(() => client.post<AutomationDto>(t('/automations'), body)),
    setAutomationStatus: (id, status) => call(() => client.patch<AutomationDto>(automation(id), { status })),
    runAutomation: (id) => call(() => client.post<SessionDto>(`${automation(id)}/runs`)),
    deleteAutomation: (id) => call(async () => void (await client.delete(automation(id)))),
    listRuns: (id, limit) => call(async () => (await client.list<SessionDto>(`${automation(id)}/runs`, { limit })).data),
    sendEvent: (body, { dryRun }) =>
      call(() => client.post<EventResultDto>(t('/webhooks/events'), body, dryRun ? { dry_run: 'true' } : undefined)),
    listEvents: (limit) => call(async () => (await client.list<ReceivedEventDto>(t('/events'), { limit })).data),
    scanSkills: (repository, ref) => call(() => client.post<ScanResultDto>(t('/skills/scan'), { repository, ref })),
    listEnvironments: () => call(() => client.get<EnvironmentDto[]>(t('/environments'))),
    listEnvVars: () => call(() => client.get<EnvVarDto[]>(t('/env-vars'))),
    setEnvVar: ({ name, value, isSecret, environmentId }) =>
      call(() => client.put<EnvVarDto>(t(apiPath`/env-vars/${name}`), { value, is_secret: isSecret }, { environment_id: environmentId })),
    unsetEnvVar: (name, environmentId) =>
      call(async () => void (await client.delete(t(apiPath`/env-vars/${name}`), { environment_id: environmentId }))),
    listSessions: ({ status, limit }) => call(async () => (await client.list<SessionDto>(t('/sessions'), { status, limit })).data),
    getSession: (id) => call(() => client.get<SessionWithMessagesDto>(t(apiPath`/sessions/${id}`))),
    followUp: (id, message) => call(async () => void (await client.post(t(apiPath`/sessions/${id}/messages`), { message }))),
    listConnections: () => call(() => connections.listAll({ limit: 200 })),
    getConnection: (id) => call(() => connections.get(id)),
    createConnection: (body) => call(() => connections.create(body)),
    listDeliveries: (id, limit) => call(async () => (await connections.deliveries(id, { limit })).data),
  };
}
