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
