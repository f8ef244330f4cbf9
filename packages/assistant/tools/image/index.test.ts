import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '@goondan/core';
import { createTestToolContext } from '@goondan/core/testing';
import { handlers } from './index.ts';

const KEY = 'fal-test-key-0123456789';
process.env.GOONDAN_TEST_IMAGE_KEY = KEY;
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(56, 7)]);
const root = mkdtempSync(join(tmpdir(), 'assistant-image-'));
let origin = '';
const requests: { path: string; authorization: string | null; body: Record<string, unknown> }[] = [];

// A fake fal.ai and OpenAI images API on 127.0.0.1.
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method === 'GET' && url.pathname === '/files/result.png')
      return new Response(PNG, { headers: { 'content-type': 'image/png' } });
    const body = (await request.json()) as Record<string, unknown>;
    requests.push({ path: url.pathname, authorization: request.headers.get('authorization'), body });
    if (body.prompt === 'refused key') return Response.json({ detail: 'Invalid key' }, { status: 401 });
    if (body.prompt === 'no images') return Response.json({ nothing: true });
    if (url.pathname === '/fal-ai/flux/schnell') {
      return Response.json({
        images: [{ url: `${origin}/files/result.png`, content_type: 'image/png' }],
        prompt: body.prompt,
      });
    }
    if (url.pathname === '/v1/images/generations')
      return Response.json({ created: 1, data: [{ b64_json: PNG.toString('base64') }] });
    return new Response('no', { status: 404 });
  },
});
origin = `http://127.0.0.1:${server.port}`;
afterAll(() => {
  server.stop(true);
  rmSync(root, { recursive: true, force: true });
});

function imageCtx(name: string, config: JsonObject) {
  const workdir = join(root, name);
  mkdirSync(workdir, { recursive: true });
  return { workdir, ctx: createTestToolContext({ workdir, config }) };
}
const fal: JsonObject = {
  baseUrl: `http://127.0.0.1:${server.port}`,
  apiKey: { valueFrom: { env: 'GOONDAN_TEST_IMAGE_KEY' } },
};

async function failure(run: () => Promise<unknown>) {
  try {
    return { code: 'none', message: JSON.stringify(await run()), suggestion: '' };
  } catch (error) {
    return error as { code: string; message: string; suggestion: string };
  }
}

describe('image__generate', () => {
  test('fal: the named size becomes pixels, the image lands in the workdir', async () => {
    const { workdir, ctx } = imageCtx('fal', fal);
    const made = await handlers.generate(ctx, { prompt: '노을 지는 한강, watercolor', image_size: 'landscape_16_9' });
    expect(requests.at(-1)).toMatchObject({
      path: '/fal-ai/flux/schnell',
      authorization: `Key ${KEY}`,
      body: { image_size: { width: 1024, height: 576 }, num_images: 1 },
    });
    expect(made).toMatchObject({ mediaType: 'image/png', bytes: PNG.length, size: '1024x576', provider: 'fal' });
    expect(made.path).toMatch(/^images\/\d{8}T\d{6}-노을-지는-한강-watercolor\.png$/);
    expect(readFileSync(join(workdir, made.path))).toEqual(PNG);
    const named = await handlers.generate(ctx, { prompt: 'cat', file_name: 'cat.png' });
    expect(named.path).toBe('images/cat.png');
    expect((await failure(() => handlers.generate(ctx, { prompt: 'cat', file_name: 'cat' }))).code).toBe(
      'E_TOOL_INVALID_ARGS',
    );
    expect((await failure(() => handlers.generate(ctx, { prompt: 'cat', file_name: '../../escape' }))).code).toBe(
      'E_PATH_OUTSIDE_WORKDIR',
    );
  });

  test('a file_name that is taken or cannot be written is refused before the provider is asked (and paid)', async () => {
    const { ctx } = imageCtx('named', fal);
    await handlers.generate(ctx, { prompt: 'cat', file_name: 'cat' });
    const asked = requests.length;
    for (const [file_name, code] of [
      ['cat', 'E_TOOL_INVALID_ARGS'],
      ['cat.jpg', 'E_TOOL_INVALID_ARGS'],
      ['ca\u0000t', 'E_PATH_OUTSIDE_WORKDIR'],
      ['가'.repeat(90), 'E_TOOL_INVALID_ARGS'],
      ['../../escape', 'E_PATH_OUTSIDE_WORKDIR'],
    ] as const)
      expect((await failure(() => handlers.generate(ctx, { prompt: 'cat', file_name }))).code).toBe(code);
    expect(requests.length).toBe(asked);
  });

  test('OpenAI: its three sizes, base64 images', async () => {
    const { workdir, ctx } = imageCtx('openai', {
      ...fal,
      provider: 'openai',
      baseUrl: `http://127.0.0.1:${server.port}/v1`,
      outputDir: 'art',
    });
    const made = await handlers.generate(ctx, { prompt: 'a fox', image_size: 'portrait_4_3' });
    expect(requests.at(-1)).toMatchObject({
      path: '/v1/images/generations',
      authorization: `Bearer ${KEY}`,
      body: { model: 'gpt-image-1', size: '1024x1536' },
    });
    expect(made.path).toMatch(/^art\/.*-a-fox\.png$/);
    expect(existsSync(join(workdir, made.path))).toBe(true);
  });

  test('a refused key, an answer without images, no key and an unknown provider are coded; nothing is written', async () => {
    const { workdir, ctx } = imageCtx('errors', { ...fal, maxRetries: 0 });
    const refused = await failure(() => handlers.generate(ctx, { prompt: 'refused key' }));
    expect(refused.code).toBe('E_SERVICE_AUTH');
    expect(`${refused.message} ${refused.suggestion}`).not.toContain(KEY);
    expect((await failure(() => handlers.generate(ctx, { prompt: 'no images' }))).code).toBe(
      'E_SERVICE_RESPONSE_INVALID',
    );
    const noKey = imageCtx('nokey', {
      baseUrl: fal.baseUrl as string,
      apiKey: { valueFrom: { env: 'GOONDAN_TEST_UNSET' } },
    });
    expect((await failure(() => handlers.generate(noKey.ctx, { prompt: 'x' }))).code).toBe('E_VALUE_SOURCE_ENV');
    expect(
      (await failure(() => handlers.generate(imageCtx('p', { provider: 'midjourney' }).ctx, { prompt: 'x' }))).code,
    ).toBe('E_SERVICE_NOT_CONFIGURED');
    expect(existsSync(join(workdir, 'images'))).toBe(false);
  });
});

describe('image__print', () => {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const record = join(root, 'lp-args');
  const savedPath = process.env.PATH;
  afterAll(() => {
    process.env.PATH = savedPath;
  });
  const fakeLp = (script: string) => {
    writeFileSync(join(bin, 'lp'), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, 'lp'), 0o755);
    process.env.PATH = `${bin}:${savedPath}`;
  };

  test('hands the image to lp with the printer and copies, and answers the request id', async () => {
    fakeLp(`printf '%s\\n' "$@" > ${record}\necho "request id is office-42 (1 file(s))"`);
    const { workdir, ctx } = imageCtx('print', { printer: 'office' });
    writeFileSync(join(workdir, 'photo.png'), PNG);
    expect(await handlers.print(ctx, { image_path: 'photo.png', copies: 2 })).toEqual({
      printed: 'photo.png',
      kind: 'PNG',
      copies: 2,
      printer: 'office',
      request: 'office-42',
    });
    expect(readFileSync(record, 'utf8').split('\n')).toEqual([
      '-d',
      'office',
      '-n',
      '2',
      '-t',
      'photo.png',
      '--',
      join(workdir, 'photo.png'),
      '',
    ]);
  });

  test('refuses non-images and paths outside; lp failing and lp missing are coded', async () => {
    const { workdir, ctx } = imageCtx('print-errors', {});
    writeFileSync(join(workdir, 'notes.png'), 'not really an image');
    writeFileSync(join(workdir, 'photo.png'), PNG);
    fakeLp('echo "lp: Error - No default destination." >&2\nexit 1');
    expect((await failure(() => handlers.print(ctx, { image_path: 'notes.png' }))).code).toBe('E_TOOL_INVALID_ARGS');
    expect((await failure(() => handlers.print(ctx, { image_path: '../print/photo.png' }))).code).toBe(
      'E_PATH_OUTSIDE_WORKDIR',
    );
    expect((await failure(() => handlers.print(ctx, { image_path: 'gone.png' }))).code).toBe('E_FILE_NOT_FOUND');
    const failed = await failure(() => handlers.print(ctx, { image_path: 'photo.png' }));
    expect(failed).toMatchObject({ code: 'E_PRINT_FAILED', message: 'lp failed: lp: Error - No default destination.' });
    process.env.PATH = join(root, 'empty-bin');
    const missing = await failure(() => handlers.print(ctx, { image_path: 'photo.png' }));
    expect(missing.code).toBe('E_TOOL_UNAVAILABLE');
    expect(missing.suggestion).toContain('cups-client');
  });
});
