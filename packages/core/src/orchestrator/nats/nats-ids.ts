import { randomBytes } from 'node:crypto';
import { formatAddress, type IpcMessage } from '../ipc-message.ts';

/** A short random id usable in subjects and consumer names (letters and digits only). */
export function natsId(prefix: string): string {
  return `${prefix}${randomBytes(9).toString('hex')}`;
}

/** The lease key of an agent instance in the swarm's KV bucket (base64url keeps any address a valid key). */
export function instanceLeaseKey(agent: string, instanceKey: string): string {
  return `instance.${Buffer.from(formatAddress(agent, instanceKey)).toString('base64url')}`;
}

/** The key an orchestrator keeps alive while it runs: workers stop its processes once it is gone. */
export function hostLeaseKey(hostId: string): string {
  return `host.${hostId}`;
}

/** What a worker stores under an instance's lease. */
export interface InstanceLease {
  workerId: string;
  connectionId: string;
  hostId: string;
}

/** The spawn request an orchestrator sends to the workers' queue group, and its answer. */
export interface SpawnRequest {
  connectionId: string;
  hostId: string;
  config: import('../spawn-agent-process.ts').AgentProcessConfig;
}

const idPattern = /^[A-Za-z0-9]{1,64}$/;

/**
 * Why a spawn request is not one an orchestrator sends, or null when it is. Its ids become subject and consumer
 * names (`gdn.<ns>.to.<connectionId>`): a dot or a wildcard there would reach other connections' subjects.
 */
export function spawnRequestProblem(value: unknown): string | null {
  const request = value as Partial<SpawnRequest> | null;
  if (typeof request !== 'object' || request === null) return 'it is not a JSON object';
  if (typeof request.connectionId !== 'string' || !idPattern.test(request.connectionId))
    return 'connectionId must be 1-64 letters and digits';
  if (typeof request.hostId !== 'string' || !idPattern.test(request.hostId))
    return 'hostId must be 1-64 letters and digits';
  const config = request.config as Partial<SpawnRequest['config']> | undefined;
  if (typeof config !== 'object' || config === null) return 'config must be an object';
  for (const field of ['agent', 'instanceKey', 'bundleDir'] as const) {
    if (typeof config[field] !== 'string' || config[field] === '') return `config.${field} must be a non-empty string`;
  }
  if (!Array.isArray(config.libraries) || !config.libraries.every((dir) => typeof dir === 'string'))
    return 'config.libraries must be a list of paths';
  return null;
}

export type SpawnAnswer =
  | { workerId: string; pid: number }
  | { error: { code: string; message: string; suggestion?: string } };

/**
 * The Nats-Msg-Id of each message one side of a connection sends: its event id (the stream drops a second
 * publish of the same event), else (shutdown, ack) its place in the connection's order.
 */
export function messageIds(connectionId: string): (message: IpcMessage) => string {
  let sequence = 0;
  return (message) => {
    sequence += 1;
    return `${connectionId}:${message.type === 'event' ? message.payload.id : `${message.type}-${sequence}`}`;
  };
}
