/** One normalised search result (docs/assistant-pack-2.md#web-search). */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** Publication date as the provider gave it (ISO 8601 where it says), or null. */
  date: string | null;
}

/** The HTTP request one provider needs for one query. */
export interface ProviderRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: unknown;
}

/** A search API: how to ask it, and how to read its answer into results. */
export interface SearchProvider {
  /** Name in messages. */
  label: string;
  defaultBaseUrl: string | null;
  /** The variable the key is read from when config.apiKey is absent; null: no key (self-hosted). */
  keyEnv: string | null;
  request(options: { baseUrl: string; query: string; count: number; key: string | null }): ProviderRequest;
  /** Picks the results out of the parsed answer; undefined when the answer has no result list. */
  results(answer: unknown): SearchResult[] | undefined;
}

type Row = Record<string, unknown>;

function rows(value: unknown): Row[] | undefined {
  return Array.isArray(value) ? value.filter((row): row is Row => typeof row === 'object' && row !== null) : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function dateOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Row)[key] : undefined;
}

const tavily: SearchProvider = {
  label: 'Tavily',
  defaultBaseUrl: 'https://api.tavily.com',
  keyEnv: 'TAVILY_API_KEY',
  request: ({ baseUrl, query, count, key }) => ({
    url: `${baseUrl}/search`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: { query, max_results: count, search_depth: 'basic', include_answer: false },
  }),
  results: (answer) =>
    rows(field(answer, 'results'))?.map((row) => ({
      title: text(row.title),
      url: text(row.url),
      snippet: text(row.content),
      date: dateOf(row.published_date),
    })),
};

const exa: SearchProvider = {
  label: 'Exa',
  defaultBaseUrl: 'https://api.exa.ai',
  keyEnv: 'EXA_API_KEY',
  request: ({ baseUrl, query, count, key }) => ({
    url: `${baseUrl}/search`,
    method: 'POST',
    headers: { 'x-api-key': key ?? '' },
    body: { query, numResults: count, contents: { highlights: { maxCharacters: 500 } } },
  }),
  results: (answer) =>
    rows(field(answer, 'results'))?.map((row) => {
      const highlights = Array.isArray(row.highlights) ? row.highlights.filter((h) => typeof h === 'string') : [];
      return {
        title: text(row.title),
        url: text(row.url),
        snippet: highlights.join(' … ') || text(row.summary) || text(row.text),
        date: dateOf(row.publishedDate),
      };
    }),
};

const brave: SearchProvider = {
  label: 'Brave Search',
  defaultBaseUrl: 'https://api.search.brave.com',
  keyEnv: 'BRAVE_API_KEY',
  request: ({ baseUrl, query, count, key }) => ({
    url: `${baseUrl}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(count) })}`,
    method: 'GET',
    headers: { 'x-subscription-token': key ?? '' },
  }),
  results: (answer) => {
    const web = field(answer, 'web');
    // A query with no web hits answers without `web`: that is an empty list, not a broken answer.
    if (web === undefined && typeof answer === 'object' && answer !== null && 'query' in answer) return [];
    return rows(field(web, 'results'))?.map((row) => ({
      title: text(row.title),
      url: text(row.url),
      snippet: text(row.description).replace(/<\/?strong>/g, ''),
      date: dateOf(row.page_age) ?? dateOf(row.age),
    }));
  },
};

const searxng: SearchProvider = {
  label: 'SearXNG',
  defaultBaseUrl: null,
  keyEnv: null,
  request: ({ baseUrl, query }) => ({
    url: `${baseUrl}/search?${new URLSearchParams({ q: query, format: 'json' })}`,
    method: 'GET',
    headers: {},
  }),
  results: (answer) =>
    rows(field(answer, 'results'))?.map((row) => ({
      title: text(row.title),
      url: text(row.url),
      snippet: text(row.content),
      date: dateOf(row.publishedDate),
    })),
};

/** The providers `config.provider` may name. */
export const searchProviders = { tavily, exa, brave, searxng } as const;

export type SearchProviderName = keyof typeof searchProviders;
