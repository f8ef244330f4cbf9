/**
 * clipboard__read / clipboard__write: this machine's clipboard (docs/assistant-devices.md#clipboard). Reading is
 * refused to turns from remote sources unless config.readSources names them: the clipboard can hold anything.
 */
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import {
  DEFAULT_CLIPBOARD_READ_SOURCES,
  mayReadClipboard,
  readClipboard,
  writeClipboard,
} from '../../src/devices/clipboard.ts';

const DEFAULT_MAX_CHARS = 20_000;

export const handlers = {
  read: (ctx: ToolContext) => {
    const configured = ctx.config.readSources;
    const allowed = Array.isArray(configured) ? configured.map(String) : DEFAULT_CLIPBOARD_READ_SOURCES;
    if (!mayReadClipboard(ctx.source, allowed)) {
      const from = ctx.source ? `${ctx.source.kind}:${ctx.source.name}` : 'an unknown source';
      throw new GoondanError(
        'E_CLIPBOARD_READ_DENIED',
        `Reading the clipboard is refused to a turn from ${from}: what is copied on this machine could leak to another device.`,
        {
          suggestion: `Ask the person to paste the text into the conversation, or allow this source in the clipboard Tool's config (readSources: [${allowed.map((each) => JSON.stringify(each)).join(', ')}, "${from}"]).`,
        },
      );
    }
    const maxChars = typeof ctx.config.maxChars === 'number' ? ctx.config.maxChars : DEFAULT_MAX_CHARS;
    return readClipboard({ maxChars, signal: ctx.signal });
  },
  write: (ctx: ToolContext, input: { text: string }) => writeClipboard(input.text, ctx.signal),
};
