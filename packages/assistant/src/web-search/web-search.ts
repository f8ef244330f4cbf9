import type { JsonValue } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { requestServiceJson } from '../services/request-service-json.ts';
import { serviceCredential } from '../services/service-credential.ts';
import { type SearchProviderName, type SearchResult, searchProviders } from './search-providers.ts';

export const DEFAULT_RESULTS = 5;
export const MAX_RESULTS = 10;
/** A search answer larger than this is cut off unread (a real one is tens of kilobytes). */
export const MAX_ANSWER_BYTES = 2_000_000;
const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_TITLE_CHARS = 200;
const MAX_SNIPPET_CHARS = 500;
const MAX_URL_CHARS = 2_000;

/** What web__search answers. */
export interface WebSearchAnswer {
  provider: SearchProviderName;
  query: string;
  count: number;
  results: SearchResult[];
}

function cut(value: string, max: number): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function providerOf(config: Readonly<Record<string, JsonValue>>): SearchProviderName {
  const name = config.provider ?? 'tavily';
  if (typeof name === 'string' && Object.hasOwn(searchProviders, name)) return name as SearchProviderName;
  throw new GoondanError('E_SERVICE_NOT_CONFIGURED', `config.provider of Tool/web is ${JSON.stringify(name)}.`, {
    suggestion: `Set config.provider to one of ${Object.keys(searchProviders).join(', ')}.`,
  });
}

function baseUrlOf(config: Readonly<Record<string, JsonValue>>, name: SearchProviderName): string {
  const configured = config.baseUrl;
  if (configured !== undefined && (typeof configured !== 'string' || !/^https?:\/\/[^/]/.test(configured))) {
    throw new GoondanError('E_SERVICE_NOT_CONFIGURED', `config.baseUrl of Tool/web must be an http(s) URL.`);
  }
  const base = (configured as string | undefined) ?? searchProviders[name].defaultBaseUrl;
  if (!base) {
    throw new GoondanError('E_SERVICE_NOT_CONFIGURED', `The ${name} provider needs config.baseUrl (your instance).`, {
      suggestion:
        'Set config.baseUrl of Tool/web to your SearXNG address, e.g. http://127.0.0.1:8888, with json in its search.formats.',
    });
  }
  return base.replace(/\/+$/, '');
}

function boundedInteger(value: unknown, fallback: number, max: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(Math.max(1, Math.floor(value)), max) : fallback;
}

/**
 * Searches the web through the provider of the Tool's config and answers at most `count` results, each cut to a
 * bounded title, url and snippet. Errors are coded (see requestServiceJson), SearXNG's 403 explained.
 */
export async function webSearch(options: {
  config: Readonly<Record<string, JsonValue>>;
  query: string;
  count?: number;
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
}): Promise<WebSearchAnswer> {
  const { config } = options;
  const query = options.query.trim();
  if (query === '') throw new GoondanError('E_TOOL_INVALID_ARGS', 'The query is empty.');
  const name = providerOf(config);
  const provider = searchProviders[name];
  const baseUrl = baseUrlOf(config, name);
  const credential = provider.keyEnv
    ? serviceCredential({
        config,
        key: 'apiKey',
        defaultEnv: provider.keyEnv,
        service: provider.label,
        env: options.env,
      })
    : null;
  const count = boundedInteger(options.count ?? config.maxResults, DEFAULT_RESULTS, MAX_RESULTS);
  const request = provider.request({ baseUrl, query, count, key: credential?.value ?? null });
  let answer: unknown;
  try {
    answer = await requestServiceJson({
      ...request,
      service: provider.label,
      timeoutMs: boundedInteger(config.timeoutMs, DEFAULT_TIMEOUT_MS, 120_000),
      maxBytes: MAX_ANSWER_BYTES,
      signal: options.signal,
      credential: credential?.from,
    });
  } catch (thrown) {
    if (name === 'searxng' && (thrown as GoondanError).code === 'E_SERVICE_AUTH') {
      throw new GoondanError('E_SERVICE_AUTH', (thrown as Error).message, {
        suggestion:
          'SearXNG refuses format=json unless its settings.yml lists json under search.formats; add it and restart SearXNG.',
      });
    }
    throw thrown;
  }
  const found = provider.results(answer);
  if (!found) {
    throw new GoondanError('E_SERVICE_RESPONSE_INVALID', `${provider.label} answered JSON without a result list.`);
  }
  const results = found
    .filter((result) => /^https?:\/\//.test(result.url))
    .slice(0, count)
    .map((result) => ({
      title: cut(result.title, MAX_TITLE_CHARS) || result.url,
      url: result.url.slice(0, MAX_URL_CHARS),
      snippet: cut(result.snippet, MAX_SNIPPET_CHARS),
      date: result.date ? result.date.slice(0, 40) : null,
    }));
  return { provider: name, query, count: results.length, results };
}
