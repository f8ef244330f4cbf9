/** The catalogue's size options (builtin-tools-assistant.md, generate_image): fal's named sizes. */
export const IMAGE_SIZES = [
  'square_hd',
  'square',
  'landscape_4_3',
  'landscape_16_9',
  'portrait_4_3',
  'portrait_16_9',
] as const;

export type ImageSizeName = (typeof IMAGE_SIZES)[number];
type Size = `${number}x${number}`;

/** fal's own pixel sizes for its named sizes. */
const falSizes: Record<ImageSizeName, Size> = {
  square_hd: '1024x1024',
  square: '512x512',
  landscape_4_3: '1024x768',
  landscape_16_9: '1024x576',
  portrait_4_3: '768x1024',
  portrait_16_9: '576x1024',
};

/** OpenAI's image models take three sizes: the named size's shape picks one (4:3 and 16:9 both become 3:2). */
const openaiSizes: Record<ImageSizeName, Size> = {
  square_hd: '1024x1024',
  square: '1024x1024',
  landscape_4_3: '1536x1024',
  landscape_16_9: '1536x1024',
  portrait_4_3: '1024x1536',
  portrait_16_9: '1024x1536',
};

/** The pixel size a provider is asked for (default square_hd). */
export function pixelSize(provider: 'fal' | 'openai', name: ImageSizeName = 'square_hd'): Size {
  return (provider === 'fal' ? falSizes : openaiSizes)[name];
}
