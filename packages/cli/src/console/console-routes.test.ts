import { expect, test } from 'bun:test';
import { createServeApi } from '../serve/serve-api.ts';
import { consoleRoutes } from './console-routes.ts';

const api = createServeApi({
  routes: consoleRoutes({ mode: 'bundle', rootDir: () => '/nonexistent', agents: () => [] }),
});
const get = (path: string) => api(new Request(`http://127.0.0.1${path}`));

test('error pages: a known code shows its page; an unknown one links to the hosted docs; markup in the URL stays text', async () => {
  const known = await get('/console/errors/E_TOOL_NOT_FOUND');
  expect(known.status).toBe(200);
  expect(await known.text()).toContain('<title>E_TOOL_NOT_FOUND</title>');

  const saved = process.env.GOONDAN_HELP_BASE_URL;
  process.env.GOONDAN_HELP_BASE_URL = 'https://docs.invalid/errors/';
  try {
    const unknown = await get('/console/errors/E_NO_SUCH_CODE');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain(
      '<a href="https://docs.invalid/errors/E_NO_SUCH_CODE.md">https://docs.invalid/errors/E_NO_SUCH_CODE.md</a>',
    );
  } finally {
    if (saved === undefined) delete process.env.GOONDAN_HELP_BASE_URL;
    else process.env.GOONDAN_HELP_BASE_URL = saved;
  }

  const hostile = await get(`/console/errors/${encodeURIComponent('</title><script>alert(1)</script>')}`);
  expect(hostile.status).toBe(404);
  const body = await hostile.text();
  expect(body).not.toContain('<script>');
  expect(body).not.toContain('alert(1)');
});
