type Schema = Record<string, unknown>;

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A string as a single-quoted TypeScript literal (the quote style of Biome, which formats generated files too). */
function stringLiteral(text: string): string {
  return `'${JSON.stringify(text).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
}

/** A JSON value as a TypeScript literal type. */
function literal(value: unknown): string {
  return typeof value === 'string' ? stringLiteral(value) : JSON.stringify(value);
}

/** A property key as TypeScript spells it: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return identifier.test(name) ? name : stringLiteral(name);
}

function docComment(schema: Schema, indent: string): string {
  const description = typeof schema.description === 'string' ? schema.description.trim() : '';
  if (!description) return '';
  return `${indent}/** ${description.replaceAll('*/', '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

function objectType(schema: Schema, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(
    ([name, property]) =>
      `${docComment(property, inner)}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${schemaToType(property, inner)};`,
  );
  const extra = schema.additionalProperties;
  if (extra === true || (extra === undefined && lines.length === 0)) lines.push(`${inner}[key: string]: unknown;`);
  else if (extra && typeof extra === 'object')
    lines.push(`${inner}[key: string]: ${schemaToType(extra as Schema, inner)};`);
  return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${indent}}`;
}

function typeOfName(name: string, schema: Schema, indent: string): string {
  switch (name) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = schema.items;
      if (Array.isArray(items)) return `[${items.map((item) => schemaToType(item as Schema, indent)).join(', ')}]`;
      const item = items && typeof items === 'object' ? schemaToType(items as Schema, indent) : 'unknown';
      return /[|&]/.test(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectType(schema, indent);
    default:
      return 'unknown';
  }
}

/**
 * The TypeScript type of the values a JSON Schema accepts, for the keywords that shape a value: type, properties,
 * required, additionalProperties, items, enum, const, anyOf/oneOf (a union) and allOf (an intersection). Keywords
 * that only narrow a value (minLength, pattern, minimum, format …) leave the type as it is; `$ref` and anything
 * unknown become `unknown`, which is never wrong, only less precise.
 */
export function schemaToType(schema: Schema | boolean, indent = ''): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(alternatives)) return union(alternatives.map((part) => schemaToType(part, indent)));
  if (Array.isArray(schema.allOf)) {
    return (schema.allOf as Schema[]).map((part) => schemaToType(part, indent)).join(' & ') || 'unknown';
  }
  const type = schema.type;
  if (Array.isArray(type)) return union(type.map((name) => typeOfName(String(name), schema, indent)));
  if (typeof type === 'string') return typeOfName(type, schema, indent);
  if (schema.properties) return objectType(schema, indent);
  return 'unknown';
}
