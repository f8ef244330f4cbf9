import type { JsonObject, JsonValue } from '../types.ts';
import { knownSecretValues } from './secret-registry.ts';

/** What replaces a secret. */
export const REDACTED = '[REDACTED]';
/** What replaces a container nested deeper than MAX_REDACT_DEPTH. */
export const TRUNCATED = '[TRUNCATED]';
export const MAX_REDACT_DEPTH = 64;
/** Shorter given secret values are ignored: replacing every `abc` would shred the text and protect nothing. */
const MIN_SECRET_VALUE_CHARS = 4;

/** Words that make a key a secret wherever they stand in it: `db_password`, `githubToken`, `Set-Cookie`. */
const secretWords = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'authorization',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  // the pairs below written as one word
  'apikey',
  'accesskey',
  'privatekey',
  'secretkey',
  'clientsecret',
  'accesstoken',
  'refreshtoken',
  'authtoken',
  'sessionid',
  'sessiontoken',
  'setcookie',
]);
/** Two words that name a secret together, though neither does alone (`key`, `session` are too common). */
const secretPairs = new Set(['api key', 'access key', 'private key', 'session id', 'session key']);
/** A last word that makes the key describe a secret rather than hold it: `token_count`, `api_key_env`. */
const describingSuffixes = new Set([
  'count',
  'counts',
  'used',
  'usage',
  'limit',
  'limits',
  'max',
  'min',
  'type',
  'length',
  'size',
  'expires',
  'expiry',
  'expiration',
  'ttl',
  'name',
  'url',
  'uri',
  'endpoint',
  'path',
  'file',
  'env',
  'hint',
  'policy',
]);
const describingPrefixes = new Set(['max', 'min', 'num', 'total']);

/** `apiKey`, `API_KEY`, `x-api-key` and `APIKey` all become `['api', 'key']`. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/**
 * True when an object key (or a variable or header name) names a secret. Whole words only, so `tokens_used`,
 * `tokenizer` and `secretary` are not secrets; a describing last word (`token_count`, `password_file`) wins.
 */
export function isSecretKey(key: string): boolean {
  // The same few keys come back on every span, message and audit row: each is split into words once.
  const known = secretKeyVerdicts.get(key);
  if (known !== undefined) return known;
  const verdict = judgeKey(key);
  if (secretKeyVerdicts.size >= MAX_KEY_VERDICTS) secretKeyVerdicts.clear();
  secretKeyVerdicts.set(key, verdict);
  return verdict;
}

const MAX_KEY_VERDICTS = 4096;
const secretKeyVerdicts = new Map<string, boolean>();

function judgeKey(key: string): boolean {
  const words = keyWords(key);
  if (words.length === 0) return false;
  if (describingSuffixes.has(words.at(-1)!) || describingPrefixes.has(words[0]!)) return false;
  if (words.some((word) => secretWords.has(word))) return true;
  return words.some((word, index) => index > 0 && secretPairs.has(`${words[index - 1]} ${word}`));
}

/**
 * Credentials recognisable by their shape, replaced wherever they appear in a string. Each pattern starts at few
 * places or bounds what it scans from there, so a megabyte of `sk-sk-sk-…` stays linear, not quadratic.
 */
const credentialPatterns: readonly [RegExp, string][] = [
  // A PEM private key, whole; a block cut off before its END line is redacted to the end of the string.
  [/-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g, REDACTED],
  // scheme://user:password@host keeps the scheme, user and host.
  [/\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/@:?#]{0,256}):[^\s/@?#]{1,256}@/gi, `$1:${REDACTED}@`],
  // OpenAI / Anthropic style keys (sk-..., sk-proj-..., sk-ant-...): long, with a digit somewhere.
  [/(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/(?<![A-Za-z0-9])[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g, REDACTED],
  [/(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{30,}/g, REDACTED],
  [/(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{30,}/g, REDACTED],
  [/(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}/g, REDACTED],
  // A Telegram bot token: the bot's id, a colon, a secret that starts with AA.
  [/(?<![A-Za-z0-9_])\d{6,12}:AA[A-Za-z0-9_-]{30,}/g, REDACTED],
  [/(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g, REDACTED],
  // JWT: header and payload are base64url JSON, so both start with `eyJ`.
  [/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, REDACTED],
  [/\b(Bearer)\s+(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{8,}=*/gi, `$1 ${REDACTED}`],
];

/**
 * True when `text` holds a credential of a known shape anywhere (`sk-…`, `ghp_…`, `AKIA…`, a JWT, a PEM private key,
 * `Bearer …`, `user:password@` in a URL): what redactSecrets would replace on shape alone.
 */
export function containsCredential(text: string): boolean {
  return credentialPatterns.some(([pattern]) => {
    pattern.lastIndex = 0;
    return pattern.test(text);
  });
}

/** Values given next to a name that says what they are: headers, env assignments, query parameters, flags. */
const namedValuePatterns: readonly [RegExp, string][] = [
  [
    /(?<![A-Za-z0-9-])((?:proxy-)?authorization|set-cookie|cookie|api-key|x-[a-z0-9-]{0,64}?(?:token|key|secret|password|auth)[a-z0-9-]{0,64})(\s*:\s*)(?!\[REDACTED\])[^\r\n"']+/gi,
    `$1$2${REDACTED}`,
  ],
  // A password glued to mysql's -p (`mysql -u root -phunter2`; a bare -p prompts), and sshpass's -p.
  [
    /(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mariadb|mariadb-dump)\b[^\r\n|;&]{0,512}?\s-p)(?!\[REDACTED\])[^\s'"]+/g,
    `$1${REDACTED}`,
  ],
  [/(\bsshpass\s+(?:-[a-zA-Z]\S*\s+){0,8}?-p\s*)(?!\[REDACTED\])[^\s'"]+/g, `$1${REDACTED}`],
  [
    // Any case: `DB_PASSWORD=…` in a command line, `password=…` in an echo or a form body.
    /(?<![A-Za-z0-9_])([A-Z0-9_]{0,64}(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_KEY|APIKEY|ACCESS_KEY|CREDENTIALS?)=)(?!\[REDACTED\])(?:"[^"]*"|'[^']*'|[^\s"'&;]+)/gi,
    `$1${REDACTED}`,
  ],
  // `curl -u user:password`, `--user=user:password` (not `-u 1000:1000`, a uid:gid).
  [
    /(?<![A-Za-z0-9_-])(-u|--user)(\s+|=)([^\s:'"]{1,256}):(?!\[REDACTED\])(?!\d+(?![^\s'"]))[^\s'"]{1,256}/g,
    `$1$2$3:${REDACTED}`,
  ],
  [
    /([?&](?:[a-z0-9]+_)*(?:token|api_?key|key|password|passwd|secret|signature|sig)=)(?!\[REDACTED\])[^&#\s"']+/gi,
    `$1${REDACTED}`,
  ],
  [
    /(--(?:[a-z0-9]+-)*(?:password|passwd|passphrase|token|secret|api-key|apikey|access-key)(?:=|\s+))(?!\[REDACTED\])(?:"[^"]*"|'[^']*'|[^\s"']+)/gi,
    `$1${REDACTED}`,
  ],
];

/** `"password": "..."` inside a string that holds JSON. */
const jsonMemberPattern = /"([^"\\]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
/** `password: ...`, `token = ...`, `export DB_PASSWORD=...`: one per line of a config file or a listing. */
const assignmentLinePattern = /^([ \t]*(?:export[ \t]+)?["']?([A-Za-z][\w.-]*)["']?[ \t]*[:=][ \t]*)(\S[^\r\n]*)$/gm;

/** Values that hold no secret, or hold one already redacted, in a line or a JSON member: `"[REDACTED]",`, `null`. */
function isPlaceholder(value: string): boolean {
  const bare = value
    .trim()
    .replace(/,$/, '')
    .replace(/^(["'])(.*)\1$/, '$2');
  return bare === '' || bare.startsWith(REDACTED) || /^(?:null|true|false|~)$/.test(bare);
}

/**
 * Text made only of letters, digits, `_`, `.` and spaces (names, ids, statuses: most strings of a span or a
 * message's metadata) can match none of the patterns below but those listed in `shapesInPlainText`: every other
 * one needs a `-`, `:`, `=`, `/`, `"`, `?`, `&` or a line of `key: value`.
 */
const plainText = /^[A-Za-z0-9_. ]*$/;
const shapesInPlainText = /[sr]k_(?:live|test)_|gh[pousr]_|github_pat_|AIza|AKIA|ASIA|eyJ|bearer/i;

function redactString(text: string, secretValues: readonly string[]): string {
  let out = text;
  for (const secret of secretValues) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  if (plainText.test(out) && !shapesInPlainText.test(out)) return out;
  for (const [pattern, replacement] of credentialPatterns) out = out.replace(pattern, replacement);
  for (const [pattern, replacement] of namedValuePatterns) out = out.replace(pattern, replacement);
  out = out.replace(jsonMemberPattern, (member, key: string, separator: string, value: string) =>
    isSecretKey(key) && !isPlaceholder(value) ? `"${key}"${separator}"${REDACTED}"` : member,
  );
  return out.replace(assignmentLinePattern, (line, head: string, key: string, value: string) =>
    isSecretKey(key) && !isPlaceholder(value) ? `${head}${REDACTED}` : line,
  );
}

/** Under a secret key, any value that could hold one goes; null, booleans and '' stay, to show what was set. */
function redactUnderSecretKey(value: JsonValue): JsonValue {
  return value === null || typeof value === 'boolean' || value === '' ? value : REDACTED;
}

function redactValue(value: JsonValue, secretValues: readonly string[], depth: number): JsonValue {
  if (typeof value === 'string') return redactString(value, secretValues);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_REDACT_DEPTH) return TRUNCATED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secretValues, depth + 1));
  // `{ name: 'X-Api-Key', value: '...' }`, as headers and environment lists are often written.
  const label = typeof value.name === 'string' ? value.name : typeof value.key === 'string' ? value.key : undefined;
  const labelledSecret = label !== undefined && isSecretKey(label);
  const copy: JsonObject = {};
  for (const [key, entry] of Object.entries(value)) {
    const secret = isSecretKey(key) || (labelledSecret && key === 'value');
    const redacted = secret ? redactUnderSecretKey(entry) : redactValue(entry, secretValues, depth + 1);
    if (key === '__proto__') Object.defineProperty(copy, key, { value: redacted, enumerable: true, writable: true });
    else copy[key] = redacted;
  }
  return copy;
}

/**
 * A deep copy of `value` with secrets replaced by "[REDACTED]": whole values under keys that name a secret
 * (`password`, `apiKey`, `Authorization`, …), the secret part of strings holding credentials of a known shape
 * (`sk-…`, `Bearer …`, `ghp_…`, `AKIA…`, JWTs, PEM private keys, `user:password@` in URLs, `TOKEN=…`, `--password …`),
 * and every occurrence of `secretValues` and of the process's known secret values (rememberSecretValue), even inside
 * a longer string. Containers nested deeper than 64 levels become "[TRUNCATED]".
 * Best effort: a secret with no recognisable name or shape passes (docs/audit.md#redaction).
 *
 * @example
 * redactSecrets({ url: 'https://me:hunter2@example.com', apiKey: 'k-123', max_tokens: 100 })
 * // { url: 'https://me:[REDACTED]@example.com', apiKey: '[REDACTED]', max_tokens: 100 }
 */
export function redactSecrets(value: JsonValue, options: { secretValues?: readonly string[] } = {}): JsonValue {
  const given = options.secretValues ?? [];
  // The known values are long enough, without repeats and longest first already: no list to build per call.
  const secretValues =
    given.length === 0
      ? knownSecretValues()
      : [...new Set([...knownSecretValues(), ...given])]
          .filter((secret) => secret.length >= MIN_SECRET_VALUE_CHARS)
          .sort((a, b) => b.length - a.length);
  return redactValue(value, secretValues, 0);
}

const secretVariablePattern = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL/i;
const MIN_ENV_SECRET_CHARS = 8;
/** Names that end by saying they hold a place (`…_KEY_FILE`, `…_TOKEN_PATH`, `…_SECRETS_DIR`), not a secret. */
const placeSuffixPattern = /[_-](?:FILE|PATH|DIR|DIRECTORY)$/i;

/**
 * The values of environment variables whose names look secret (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`,
 * `*CREDENTIAL*`; not those ending `_FILE`, `_PATH`, `_DIR`: a place), at least 8 characters long, longest first:
 * pass them to redactSecrets as `secretValues` so a
 * key that leaks into a tool's output under no recognisable name is still caught.
 *
 * @example
 * redactSecrets(output, { secretValues: secretValuesFromEnv(process.env) })
 */
export function secretValuesFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_ENV_SECRET_CHARS || !secretVariablePattern.test(name)) continue;
    // GOONDAN_OAUTH_KEY_FILE holds where a key is, not the key: its path stays readable in messages.
    if (placeSuffixPattern.test(name)) continue;
    values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}
