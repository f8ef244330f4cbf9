import { GoondanError, type JsonValue, rememberSecretValue, resolveValueSource, type ValueSource } from '@goondan/core';

function isValueSource(value: JsonValue | undefined): value is ValueSource & JsonValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (typeof value.value === 'string') return Object.keys(value).length === 1;
  const from = value.valueFrom;
  return (
    typeof from === 'object' && from !== null && !Array.isArray(from) && typeof from.env === 'string' && from.env !== ''
  );
}

/** A credential a tool holds, and where it came from (for messages: never the value). */
export interface Credential {
  value: string;
  /** e.g. "config.apiKey (env TAVILY_API_KEY)". */
  from: string;
}

/**
 * The credential of a Tool: `config[key]` as a ValueSource, else the variable `defaultEnv`. The value is
 * remembered as a known secret, so every log and trace masks it. Missing: E_SERVICE_NOT_CONFIGURED saying both ways.
 */
export function serviceCredential(options: {
  config: Readonly<Record<string, JsonValue>>;
  key: string;
  defaultEnv: string;
  service: string;
  env?: Record<string, string | undefined>;
}): Credential {
  const { config, key, defaultEnv, service } = options;
  const env = options.env ?? process.env;
  const configured = config[key];
  if (configured !== undefined && !isValueSource(configured)) {
    throw new GoondanError('E_SERVICE_NOT_CONFIGURED', `config.${key} of the ${service} tool is not a ValueSource.`, {
      suggestion: `Write config.${key} as { valueFrom: { env: NAME } } (or leave it out to use ${defaultEnv}).`,
    });
  }
  let value: string | undefined;
  let from: string;
  if (configured !== undefined) {
    const source = configured as ValueSource;
    from = 'valueFrom' in source ? `config.${key} (env ${source.valueFrom.env})` : `config.${key}`;
    value = resolveValueSource(source, env);
  } else {
    from = `env ${defaultEnv}`;
    value = env[defaultEnv] || undefined;
  }
  if (!value) {
    throw new GoondanError('E_SERVICE_NOT_CONFIGURED', `${service} needs a key and none is set (${from}).`, {
      suggestion: `export ${defaultEnv}=... in the environment of gdn, or give the Tool config.${key}: { valueFrom: { env: NAME } }.`,
    });
  }
  rememberSecretValue(value);
  return { value, from };
}
