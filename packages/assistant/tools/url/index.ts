/** url__open: an http(s) address in the desktop's browser (docs/assistant-devices.md#url). */
import type { ToolContext } from '@goondan/core';
import { checkWebUrl, runOpener } from '../../src/devices/desktop-open.ts';

export const handlers = {
  open: async (_ctx: ToolContext, input: { url: string }) => {
    const url = checkWebUrl(input.url);
    await runOpener([url]);
    return { opened: url };
  },
};
