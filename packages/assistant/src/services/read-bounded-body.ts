import { GoondanError } from '@goondan/core/errors';

/**
 * Reads a response body up to `maxBytes`, chunk by chunk: a body announced (content-length) or found to be larger
 * is cancelled at once, so a 50 MB answer never sits in memory. Throws E_SERVICE_RESPONSE_TOO_LARGE.
 */
export async function readBoundedBody(options: {
  response: Response;
  maxBytes: number;
  service: string;
}): Promise<string> {
  const { response, maxBytes, service } = options;
  const tooLarge = () =>
    new GoondanError(
      'E_SERVICE_RESPONSE_TOO_LARGE',
      `${service} answered more than ${maxBytes} bytes; the answer was cut off unread.`,
    );
  const announced = Number(response.headers.get('content-length'));
  if (Number.isFinite(announced) && announced > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The body parsed as JSON; anything else is E_SERVICE_RESPONSE_INVALID quoting its start. */
export function parseServiceJson(text: string, service: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const start = text.replace(/\s+/g, ' ').trim().slice(0, 80);
    throw new GoondanError(
      'E_SERVICE_RESPONSE_INVALID',
      `${service} did not answer JSON (it began: ${JSON.stringify(start)}).`,
    );
  }
}
