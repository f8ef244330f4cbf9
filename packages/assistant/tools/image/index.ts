/** image__generate and image__print (docs/assistant-pack-2.md#images). */
import type { ToolContext } from '@goondan/core';
import { generateImageFile } from '../../src/images/generate-image.ts';
import type { ImageSizeName } from '../../src/images/image-sizes.ts';
import { printImage } from '../../src/images/print-image.ts';

export const handlers = {
  generate: (ctx: ToolContext, input: { prompt: string; image_size?: ImageSizeName; file_name?: string }) =>
    generateImageFile(ctx, input),
  print: (ctx: ToolContext, input: { image_path: string; copies?: number }) => printImage(ctx, input),
};
