import { looksLikeSecretValue } from './looks-like-secret-value.ts';

/**
 * The environment a child process may see (DESIGN.md §5: no API keys in child processes).
 * Drops every variable whose name says it holds a secret, every variable of a known credential provider, and every
 * variable whose value is a secret by its shape (a known secret value of this process, `sk-…`, `ghp_…`, a JWT, a long
 * random token, credentials in a URL). Everything else is kept.
 */

/** Words that make a name secret when they stand whole: `MY_PASS`, `SERVICE_KEY`, `SSH_AUTH_SOCK`. */
const secretWords = new Set([
  'PASS',
  'PASSWD',
  'PASSWORD',
  'PASSPHRASE',
  'SECRET',
  'SECRETS',
  'TOKEN',
  'TOKENS',
  'KEY',
  'KEYS',
  'CREDENTIAL',
  'CREDENTIALS',
  'CREDS',
  'AUTH',
  'OAUTH',
  'PRIVATE',
  'COOKIE',
  'COOKIES',
  'SESSION',
  'SESSIONID',
]);
/** Endings that make a word secret, long enough not to end ordinary words: `APIKEY`, `GHTOKEN`, `DBPASSWORD`. */
const secretEndings = [
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'SECRET',
  'SECRETS',
  'TOKEN',
  'CREDENTIAL',
  'CREDENTIALS',
  'APIKEY',
  'ACCESSKEY',
  'SECRETKEY',
  'PRIVATEKEY',
  'SIGNINGKEY',
  'AUTHKEY',
];

/** `SMTP_PASSWD`, `x-auth-token`, `deploySecret` and `MyApiKey` as their upper-case words. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter((word) => word.length > 0);
}

/** True when a variable's name says it holds a secret. `PWD` counts inside a longer name only (`DB_PWD`, not `PWD`). */
function isSecretName(name: string): boolean {
  const words = nameWords(name);
  if (words.length > 1 && words.includes('PWD')) return true;
  return words.some((word) => secretWords.has(word) || secretEndings.some((ending) => word.endsWith(ending)));
}

/** Prefixes of providers whose variables are credentials or point at them. */
const providerPrefixes = [
  'OPENAI_',
  'ANTHROPIC_',
  'GOOGLE_',
  'GEMINI_',
  'VERTEX_',
  'GCLOUD_',
  'GCP_',
  'CLOUDSDK_',
  'AWS_',
  'AZURE_',
  'MISTRAL_',
  'COHERE_',
  'GROQ_',
  'DEEPSEEK_',
  'XAI_',
  'OPENROUTER_',
  'TOGETHER_',
  'FIREWORKS_',
  'PERPLEXITY_',
  'REPLICATE_',
  'HF_',
  'HUGGINGFACE_',
  'GITHUB_',
  'GH_',
  'GITLAB_',
  'NPM_',
  'SLACK_',
  'DISCORD_',
  'TELEGRAM_',
  'STRIPE_',
  'SENTRY_',
  'DOCKER_',
  'VAULT_',
];

/** Whole names that hold credentials without saying so. */
const exactNames = new Set(['DATABASE_URL', 'REDIS_URL', 'MONGODB_URI', 'MONGO_URL', 'DSN', 'NETRC', 'PGPASS']);

/** `scheme://user:password@` inside a value (an empty password too, which the shape rules leave alone). */
const urlCredentialsPattern = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]*@/i;

/** True when a variable must not reach a child process: by its name, its provider, or its value. */
export function isSecretVariable(name: string, value: string | undefined): boolean {
  const upper = name.toUpperCase();
  if (isSecretName(name) || exactNames.has(upper)) return true;
  if (providerPrefixes.some((prefix) => upper.startsWith(prefix))) return true;
  return value !== undefined && (urlCredentialsPattern.test(value) || looksLikeSecretValue(value));
}

/** A copy of `env` without secrets (PATH, HOME, LANG, TERM and the like stay). */
export function scrubEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecretVariable(name, value)) continue;
    result[name] = value;
  }
  return result;
}
