import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { resolveInsideWorkdir } from '@goondan/base';
import type { JsonValue, ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { serviceCredential } from '../services/service-credential.ts';
import { imageError } from './image-errors.ts';
import { type ImageSizeName, pixelSize } from './image-sizes.ts';

const providers = {
  fal: { label: 'fal.ai', keyEnv: 'FAL_KEY', model: 'fal-ai/flux/schnell', baseUrl: 'https://fal.run' },
  openai: { label: 'OpenAI', keyEnv: 'OPENAI_API_KEY', model: 'gpt-image-1', baseUrl: 'https://api.openai.com/v1' },
} as const;
type ProviderName = keyof typeof providers;

const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

function stringOf(config: Readonly<Record<string, JsonValue>>, key: string): string | undefined {
  const value = config[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A file name from the prompt's first words: lowercase letters, digits and Hangul, joined by `-`. */
function slug(prompt: string): string {
  const words = prompt.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.slice(0, 6).join('-').slice(0, 48) || 'image';
}

function stamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
}

function alreadyExists(relativePath: string): GoondanError {
  return new GoondanError('E_TOOL_INVALID_ARGS', `'${relativePath}' already exists.`, {
    suggestion: 'Give another file_name, or leave it out for a new name.',
  });
}

/**
 * Checks, before the provider is paid for an image, that `<directory>/<base>.<ext>` can be written for every type it
 * may answer: inside the workdir, a name the file system takes (no NUL, at most 255 bytes), and not there yet.
 * (Checked only after the request, each of these threw the image away.)
 */
async function checkFreeName(workdir: string, directory: string, base: string): Promise<void> {
  for (const extension of Object.values(extensions)) {
    const target = await resolveInsideWorkdir(workdir, `${directory}/${base}.${extension}`);
    if (existsSync(target.realPath)) throw alreadyExists(target.relativePath);
  }
}

/**
 * image__generate: one image from the provider of the Tool's config (fal by default, or OpenAI) through the AI SDK's
 * generateImage, written into the workdir (config.outputDir, default `images/`; confined like the file tools).
 */
export async function generateImageFile(
  ctx: ToolContext,
  input: { prompt: string; image_size?: ImageSizeName; file_name?: string },
) {
  const config = ctx.config;
  const name = (stringOf(config, 'provider') ?? 'fal') as ProviderName;
  if (!Object.hasOwn(providers, name)) {
    throw new GoondanError('E_SERVICE_NOT_CONFIGURED', `config.provider of Tool/image is '${name}'.`, {
      suggestion: 'Set config.provider to fal or openai.',
    });
  }
  const provider = providers[name];
  const prompt = input.prompt.trim();
  if (prompt === '') throw new GoondanError('E_TOOL_INVALID_ARGS', 'The prompt is empty.');
  const key = serviceCredential({ config, key: 'apiKey', defaultEnv: provider.keyEnv, service: provider.label });
  const baseUrl = (stringOf(config, 'baseUrl') ?? provider.baseUrl).replace(/\/+$/, '');
  const model = stringOf(config, 'model') ?? provider.model;
  const size = pixelSize(name, input.image_size);
  const base = input.file_name ? input.file_name.replace(/\.[a-z0-9]+$/i, '') : `${stamp()}-${slug(prompt)}`;
  const directory = stringOf(config, 'outputDir') ?? 'images';
  await checkFreeName(ctx.workdir, directory, base);

  const [{ generateImage }, imageModel] = await Promise.all([
    import('ai'),
    name === 'fal'
      ? import('@ai-sdk/fal').then(({ createFal }) => createFal({ apiKey: key.value, baseURL: baseUrl }).image(model))
      : import('@ai-sdk/openai').then(({ createOpenAI }) =>
          createOpenAI({ apiKey: key.value, baseURL: baseUrl }).image(model),
        ),
  ]);
  let image: { uint8Array: Uint8Array; mediaType: string };
  try {
    const result = await generateImage({
      model: imageModel,
      prompt,
      size,
      n: 1,
      maxRetries: typeof config.maxRetries === 'number' ? Math.min(Math.max(0, config.maxRetries), 3) : 1,
      abortSignal: ctx.signal,
    });
    image = result.image;
  } catch (thrown) {
    if (ctx.signal.aborted) throw new GoondanError('E_TOOL_ABORTED', 'The image request was cancelled.');
    throw imageError(thrown, { service: provider.label, baseUrl, credential: key.from });
  }
  const extension = extensions[image.mediaType] ?? 'png';
  const target = await resolveInsideWorkdir(ctx.workdir, `${directory}/${base}.${extension}`);
  await mkdir(dirname(target.realPath), { recursive: true });
  try {
    await writeFile(target.realPath, image.uint8Array, { flag: 'wx' });
  } catch (thrown) {
    // Taken meanwhile by another call.
    if ((thrown as { code?: string }).code === 'EEXIST') throw alreadyExists(target.relativePath);
    throw thrown;
  }
  return {
    path: target.relativePath,
    mediaType: image.mediaType,
    bytes: image.uint8Array.byteLength,
    size,
    provider: name,
    model,
  };
}
