import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

/**
 * The regular-expression engine Ajv uses for `pattern` and `patternProperties` (its `code.regExp` option): RE2, which
 * matches in time linear in the input, so a pattern such as `^(a+)+$` cannot stall the process on a crafted value
 * (docs/decisions.md). JavaScript syntax is translated first; what RE2 cannot run in linear time (lookaround,
 * backreferences) throws here, so Ajv refuses the schema when it is compiled.
 */
function compileLinear(pattern: string, flags = ''): { test: (input: string) => boolean } {
  let compiled: RE2JS;
  try {
    const inline = ['i', 'm', 's'].filter((flag) => flags.includes(flag)).join('');
    const translated = RE2JS.translateRegExp(pattern);
    compiled = RE2JS.compile(inline ? `(?${inline})${translated}` : translated);
  } catch (thrown) {
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    throw new Error(
      `pattern "${pattern}" cannot be matched in linear time (lookaround and backreferences are not supported): ${reason}`,
    );
  }
  return { test: (input: string) => compiled.test(input) };
}

/** Ajv reads `code` only when it writes standalone validator source, which we never do. */
export const linearRegExp: RegExpEngine = Object.assign(compileLinear, { code: 'linearRegExp' });
