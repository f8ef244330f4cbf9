/**
 * JSON Schemas of the Connector and Connection kinds (shapes in resources.ts, docs/connectors.md). References,
 * declared events and Swarm membership are checked by check-connections.ts.
 */
type Schema = Record<string, unknown>;

const eventName: Schema = { type: 'string', pattern: '^[a-zA-Z0-9_.:-]{1,64}$' };
const propertyName: Schema = { pattern: '^[a-zA-Z0-9_.-]{1,64}$' };

export const connectorSpec: Schema = {
  type: 'object',
  properties: {
    entry: { type: 'string', minLength: 1 },
    events: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: eventName,
          properties: {
            type: 'object',
            propertyNames: propertyName,
            additionalProperties: {
              type: 'object',
              properties: { type: { enum: ['string', 'number', 'boolean'] }, optional: { type: 'boolean' } },
              required: ['type'],
              additionalProperties: false,
            },
          },
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
  },
  required: ['entry'],
  additionalProperties: false,
};

/** Passed in from resource-schemas.ts so both kinds share one definition of each. */
export function connectionSpec(parts: { objectRef: Schema; valueSource: Schema }): Schema {
  const valueSources: Schema = {
    type: 'object',
    propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' },
    additionalProperties: parts.valueSource,
  };
  const scalar: Schema = { type: ['string', 'number', 'boolean'] };
  const rule: Schema = {
    type: 'object',
    properties: {
      match: {
        type: 'object',
        properties: {
          event: eventName,
          properties: { type: 'object', propertyNames: propertyName, additionalProperties: scalar },
        },
        additionalProperties: false,
      },
      route: {
        type: 'object',
        properties: {
          agentRef: parts.objectRef,
          instanceKey: { type: 'string', pattern: '^[a-zA-Z0-9_.:-]{1,128}$' },
          instanceKeyProperty: { type: 'string', minLength: 1 },
          instanceKeyPrefix: { type: 'string', pattern: '^[a-zA-Z0-9_.:-]{0,64}$' },
          userIdProperty: { type: 'string', minLength: 1 },
          userIdPrefix: { type: 'string', maxLength: 64 },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };
  return {
    type: 'object',
    properties: {
      connectorRef: parts.objectRef,
      swarmRef: parts.objectRef,
      secrets: valueSources,
      config: valueSources,
      ingress: {
        type: 'object',
        properties: { rules: { type: 'array', items: rule } },
        additionalProperties: false,
      },
    },
    required: ['connectorRef'],
    additionalProperties: false,
  };
}
