// A light entry point (`@goondan/core/secrets`) for code that runs before the CLI has loaded anything, such as the
// environment seal at start-up: the package's barrel takes a good part of a second to load. It also holds the
// judges code outside core uses to keep secrets out of files (the assistant's settings tools).
export { containsCredential, isSecretKey, keyWords } from './redact-secrets.ts';
export { knownSecretValues } from './secret-registry.ts';
