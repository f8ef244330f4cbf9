import { existsSync } from 'node:fs';
import {
  ConversationStore,
  GoondanError,
  instancePaths,
  isUserId,
  type JsonValue,
  listInstanceDatabases,
  openInstanceDatabase,
  USER_ID_RULE,
} from '@goondan/core';
import { matching, positiveInteger, readFilters } from '../console/console-filters.ts';
import { badRequest } from './api-error.ts';
import { readConversationPage } from './conversation-page.ts';
import { readJsonBody, refuseUnknownFields } from './read-json-body.ts';
import { checkServedAgent, type Draining, drainingHeaders, type ServeContext } from './serve-context.ts';

/** Event types an HTTP client may not send: the runtime's own, and those only the host's parts raise. */
const reservedPrefixes = [
  'agent.',
  'turn.',
  'process.',
  'orchestrator.',
  'runtime.',
  'approval.',
  'schedule.',
  'auth.',
];
const eventTypePattern = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;
/** An event type is a name, stored with every event and shown in traces: as long as an instance key at most. */
const MAX_EVENT_TYPE_CHARS = 128;

function eventType(value: unknown): string {
  if (value === undefined) return 'user.message';
  if (typeof value === 'string' && value.length > MAX_EVENT_TYPE_CHARS) {
    throw badRequest(`'type' is ${value.length} characters long; an event type is at most ${MAX_EVENT_TYPE_CHARS}.`);
  }
  if (typeof value !== 'string' || !eventTypePattern.test(value)) {
    throw badRequest("'type' must be an event type such as 'user.message' (lower-case words joined by dots).");
  }
  if (reservedPrefixes.some((prefix) => value.startsWith(prefix))) {
    throw badRequest(`Event type '${value}' is reserved for the runtime.`);
  }
  return value;
}

/**
 * POST /v1/agents/:agent/instances/:key/events — `{ input, type?, data?, userId?, wait? }`. Without `wait` the event is
 * stored in the instance's inbox and then the answer is 202 `{ eventId }` (handled even across a restart); with
 * `wait: true` the answer is the TurnResult once the turn ends.
 */
export async function postEvent(
  request: Request,
  context: ServeContext,
  params: { agent: string; instanceKey: string },
): Promise<Response> {
  const body = await readJsonBody(request);
  refuseUnknownFields(body, ['input', 'type', 'data', 'userId', 'wait']);
  const agent = checkServedAgent(context, params.agent);
  if (typeof body.input !== 'string') throw badRequest("'input' must be a string.");
  if (body.wait !== undefined && typeof body.wait !== 'boolean') throw badRequest("'wait' must be true or false.");
  const type = eventType(body.type);
  const userId = body.userId;
  if (userId !== undefined && !isUserId(userId))
    throw badRequest(`'userId' must be ${USER_ID_RULE}: the person the turn acts for.`);
  const event = {
    input: body.input,
    type,
    target: agent,
    instanceKey: params.instanceKey,
    source: { kind: 'user', name: 'http' } as const,
    ...(body.data === undefined ? {} : { data: body.data as JsonValue }),
    ...(userId === undefined ? {} : { auth: { userId } }),
  };
  instancePaths({ rootDir: context.bundle().rootDir, agentName: agent, instanceKey: params.instanceKey });
  // 202 once the event is in the instance's inbox (committed), not before: an event that could not be stored is an
  // error here, never an accepted event that is then dropped.
  if (!body.wait) return Response.json(await context.orchestrator.sendStored(event), { status: 202 });
  const abort = new AbortController();
  request.signal.addEventListener('abort', () => abort.abort('the client went away'), { once: true });
  return Response.json(await context.orchestrator.request({ ...event, signal: abort.signal }));
}

/** GET /v1/agents/:agent/instances/:key/conversation[?limit=N] — the stored messages, oldest first. */
export function getConversation(
  url: URL,
  context: ServeContext,
  params: { agent: string; instanceKey: string },
): Response {
  const agent = checkServedAgent(context, params.agent);
  const rootDir = context.bundle().rootDir;
  const { databaseFile } = instancePaths({ rootDir, agentName: agent, instanceKey: params.instanceKey });
  // As the console reads its filters: a misspelt or repeated one is a 400, an empty one is not given.
  const { limit, before } = readFilters(url, {
    limit: positiveInteger(Number.MAX_SAFE_INTEGER),
    before: matching(/^[\w.:-]{1,128}$/, 'a message id (the `earlier` of the page after it)'),
  });
  if (!existsSync(databaseFile)) {
    const known = listInstanceDatabases({ rootDir })
      .filter((file) => file.agentName === agent)
      .map((file) => file.instanceKey);
    throw new GoondanError(
      'E_INSTANCE_NOT_FOUND',
      `Agent '${agent}' has no instance '${params.instanceKey}'. Instances: ${known.join(', ') || '(none yet)'}.`,
    );
  }
  const db = openInstanceDatabase(databaseFile, { forReading: true });
  try {
    const { shown, earlier, total } = readConversationPage(new ConversationStore(db), {
      ...(limit === undefined ? {} : { limit }),
      ...(before === undefined ? {} : { before }),
    });
    return Response.json({
      agent,
      instanceKey: params.instanceKey,
      total,
      earlier,
      messages: shown.map((message) => ({
        id: message.id,
        role: message.data.role,
        content: message.data.content as unknown as JsonValue,
        source: message.source,
        createdAt: message.createdAt.toISOString(),
      })),
    });
  } finally {
    db.close();
  }
}

/** GET /v1/models — the agents, as OpenAI clients list models. */
export function listModels(context: ServeContext): Response {
  return Response.json({ object: 'list', data: context.topology().agents.map((agent) => modelOf(context, agent)) });
}

/** GET /v1/models/:model — one agent, as OpenAI clients retrieve a model (an unknown one is E_AGENT_UNKNOWN, 404). */
export function getModel(context: ServeContext, model: string): Response {
  return Response.json(modelOf(context, checkServedAgent(context, model)));
}

function modelOf(context: ServeContext, agent: string) {
  return { id: agent, object: 'model', created: Math.floor(context.startedAt / 1000), owned_by: 'goondan' };
}

/**
 * GET /healthz — uptime and every agent instance the orchestrator knows, with its state; 503 `status: "draining"`
 * once a graceful stop has begun (a load balancer takes the host out, a supervisor sees it is not dead yet).
 */
export function health(context: ServeContext): Response {
  const draining = context.draining;
  const instances = context.orchestrator.list().map((info) => ({
    agent: info.agent,
    instanceKey: info.instanceKey,
    state: info.state,
    pid: info.pid,
    queueDepth: info.queueDepth,
    turnsServed: info.turnsServed,
    restarts: info.restarts,
  }));
  const body = {
    status: draining ? 'draining' : 'ok',
    uptimeSeconds: Math.round((Date.now() - context.startedAt) / 1000),
    swarm: context.topology().name,
    agents: context.topology().agents,
    runningTurns: context.streams.runningTurns,
    instances,
    // Stopped (its store closed) once the drain begins.
    scheduler: context.scheduler && !draining ? { activeSchedules: context.scheduler.count() } : null,
  };
  if (!draining) return Response.json(body);
  return Response.json(
    {
      ...body,
      draining: {
        reason: draining.reason,
        since: new Date(draining.since).toISOString(),
        graceEndsAt: new Date(draining.deadline).toISOString(),
        acceptedEvents: context.orchestrator.pendingSends,
      },
    },
    { status: 503, headers: healthHeaders(draining) },
  );
}

/** A draining /healthz says when the host is gone (Retry-After) and ends its connection, like refused work. */
function healthHeaders(draining: Draining): Record<string, string> {
  const { 'x-should-retry': _retry, ...headers } = drainingHeaders(draining);
  return headers;
}
