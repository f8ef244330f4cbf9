/**
 * Extension logging: one line per tool call and per turn on the instance logger (prefixed `[logging]`).
 *
 *   tool weather__get ok 3.2ms
 *   tool bash__exec error E_TOOL_TIMEOUT 30001.0ms args={"command":"sleep 99"}
 *   turn turn_ab12 completed steps=2 tokens=812/64 1204.5ms
 *   step turn_ab12#0 tools=12 messages=3 toolCalls=1 finish=tool-calls 410.2ms      (level debug only)
 *
 * config:
 *   level: info | debug      # the logger method used; debug also logs every step (default info)
 *   args: false              # log tool arguments, secrets redacted, cut to argsMaxChars (default false)
 *   argsMaxChars: 200
 *
 * Calls refused before toolCall middleware runs (not in the catalog, invalid arguments) are not logged here:
 * they are in the trace (`gdn trace`).
 */
import type { ExtensionApi, JsonObject, JsonValue } from '@goondan/core';

const secretKey = /pass(word)?|secret|token|api[-_]?key|authorization|cookie|credential/i;

/** A copy of `value` with the values of secret-looking keys replaced by "[redacted]". */
export function redactSecrets(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const copy: JsonObject = {};
  for (const [key, entry] of Object.entries(value))
    copy[key] = secretKey.test(key) ? '[redacted]' : redactSecrets(entry);
  return copy;
}

function readConfig(config: Readonly<JsonObject>) {
  const level = config.level ?? 'info';
  if (level !== 'info' && level !== 'debug') throw new Error(`config.level must be info or debug, got ${level}.`);
  const args = config.args ?? false;
  if (typeof args !== 'boolean') throw new Error('config.args must be true or false.');
  const argsMaxChars = config.argsMaxChars ?? 200;
  if (typeof argsMaxChars !== 'number' || !Number.isInteger(argsMaxChars) || argsMaxChars < 10) {
    throw new Error('config.argsMaxChars must be an integer of at least 10.');
  }
  return { level, args, argsMaxChars };
}

const elapsed = (started: number) => `${(performance.now() - started).toFixed(1)}ms`;

function errorCodeOf(thrown: unknown): string {
  const code = (thrown as { code?: unknown })?.code;
  return typeof code === 'string' ? code : 'thrown';
}

export function register(api: ExtensionApi): void {
  const { level, args, argsMaxChars } = readConfig(api.config);
  const log = (line: string) => (level === 'debug' ? api.logger.debug(line) : api.logger.info(line));
  const argsText = (value: JsonObject) => {
    const text = JSON.stringify(redactSecrets(value));
    return ` args=${text.length <= argsMaxChars ? text : `${text.slice(0, argsMaxChars)}…`}`;
  };

  // Outermost, so the duration covers the other extensions' toolCall middleware too.
  api.pipeline.register(
    'toolCall',
    async (ctx) => {
      const started = performance.now();
      const suffix = args ? argsText(ctx.args) : '';
      try {
        const result = await ctx.next();
        const code = result.error?.code ? ` ${result.error.code}` : '';
        log(`tool ${ctx.toolName} ${result.status}${code} ${elapsed(started)}${suffix}`);
        return result;
      } catch (thrown) {
        log(`tool ${ctx.toolName} error ${errorCodeOf(thrown)} ${elapsed(started)}${suffix}`);
        throw thrown;
      }
    },
    { priority: -10_000 },
  );

  api.pipeline.register(
    'turn',
    async (ctx) => {
      const started = performance.now();
      try {
        const result = await ctx.next();
        const code = result.error ? ` ${result.error.code}` : '';
        const { inputTokens, outputTokens } = result.usage;
        log(
          `turn ${ctx.turnId} ${result.status}${code} steps=${result.steps} tokens=${inputTokens}/${outputTokens} ${elapsed(started)}`,
        );
        return result;
      } catch (thrown) {
        log(`turn ${ctx.turnId} error ${errorCodeOf(thrown)} ${elapsed(started)}`);
        throw thrown;
      }
    },
    { priority: -10_000 },
  );

  if (level === 'debug') {
    api.pipeline.register(
      'step',
      async (ctx) => {
        const started = performance.now();
        const outcome = await ctx.next();
        const code = outcome.error ? ` ${outcome.error.code}` : '';
        log(
          `step ${ctx.turnId}#${ctx.stepIndex} tools=${ctx.toolCatalog.length} messages=${ctx.messages.length} ` +
            `toolCalls=${outcome.toolCalls} finish=${outcome.finishReason}${code} ${elapsed(started)}`,
        );
        return outcome;
      },
      { priority: 10_000 },
    );
  }
}
