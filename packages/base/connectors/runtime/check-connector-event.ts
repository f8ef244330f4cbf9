import type { ConnectorEvent, DeclaredEvents } from './connector-types.ts';

/**
 * E_CONNECTOR_EVENT_INVALID, as a plain Error with a `code`: this file runs in connector processes too, which do not
 * load @goondan/core (its import costs seconds of start-up on a busy machine).
 */
function connectorEventError(message: string): Error & { code: string } {
  return Object.assign(new Error(message), { name: 'ConnectorEventInvalidError', code: 'E_CONNECTOR_EVENT_INVALID' });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks an emitted event against the Connector's `spec.events` (docs/connectors.md): a declared name, every
 * required property present, each of its declared type, no undeclared property, text a string. `events` null (the
 * Connector declares none) accepts any name with scalar properties. Throws an Error whose code is
 * E_CONNECTOR_EVENT_INVALID.
 */
export function checkConnectorEvent(value: unknown, events: DeclaredEvents | null): ConnectorEvent {
  const invalid = (message: string) => connectorEventError(message);
  if (!isPlainObject(value) || typeof value.name !== 'string' || value.name === '') {
    throw invalid('An event is { name, message?: { type: "text", text }, properties? }');
  }
  const { name } = value;
  const message = value.message;
  if (
    message !== undefined &&
    !(isPlainObject(message) && message.type === 'text' && typeof message.text === 'string')
  ) {
    throw invalid(`event ${name}: message must be { type: "text", text: string }`);
  }
  const properties = value.properties ?? {};
  if (!isPlainObject(properties)) throw invalid(`event ${name}: properties must be a mapping`);
  const declared = events?.find((event) => event.name === name);
  if (events && !declared) {
    throw invalid(
      `event ${name} is not declared by the Connector; its events: ${events.map((event) => event.name).join(', ')}`,
    );
  }
  const types = declared?.properties ?? {};
  for (const [key, property] of Object.entries(properties)) {
    const type = typeof property;
    // NaN and the infinities are numbers no JSON carries: the host would see null, refused there less clearly.
    if (type === 'number' && !Number.isFinite(property)) {
      throw invalid(`event ${name}: property ${key} must be a finite number (got ${String(property)})`);
    }
    if (type !== 'string' && type !== 'number' && type !== 'boolean') {
      throw invalid(`event ${name}: property ${key} must be a string, number or boolean`);
    }
    if (!declared) continue;
    const expected = types[key]?.type;
    if (expected === undefined) throw invalid(`event ${name}: property ${key} is not declared`);
    if (expected !== type) throw invalid(`event ${name}: property ${key} must be a ${expected} (got ${type})`);
  }
  for (const [key, property] of Object.entries(types)) {
    if (!property.optional && properties[key] === undefined) {
      throw invalid(`event ${name}: property ${key} (${property.type}) is missing`);
    }
  }
  return {
    name,
    ...(message ? { message: { type: 'text', text: (message as { text: string }).text } } : {}),
    properties: properties as ConnectorEvent['properties'] & object,
  };
}
