/**
 * The environment a child process may see (DESIGN.md §5: no API keys in child processes).
 * Drops every variable whose name looks like a secret, every variable of a known credential provider, and every
 * variable whose value carries credentials in a URL (`scheme://user:password@host`). Everything else is kept.
 */

/** Names that look like they hold a secret, anywhere in the name. */
const secretNamePattern = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE/i;

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

/** `scheme://user:password@` inside a value. */
const urlCredentialsPattern = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]*@/i;

/** True when a variable must not reach a child process. */
export function isSecretVariable(name: string, value: string | undefined): boolean {
  const upper = name.toUpperCase();
  if (secretNamePattern.test(upper) || exactNames.has(upper)) return true;
  if (providerPrefixes.some((prefix) => upper.startsWith(prefix))) return true;
  return value !== undefined && urlCredentialsPattern.test(value);
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
