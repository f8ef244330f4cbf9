/**
 * finder__*: the desktop's file manager (docs/assistant-devices.md#finder). reveal shows a workdir path; list_dir
 * lists a workdir folder; get_selection (macOS only) reads Finder's selection.
 */
import type { ToolContext } from '@goondan/core';
import { reveal } from '../../src/devices/desktop-open.ts';
import { finderSelection } from '../../src/devices/finder-selection.ts';
import { listDir } from '../../src/devices/list-dir.ts';

export const handlers = {
  reveal: (ctx: ToolContext, input: { path: string }) => reveal(ctx.workdir, input.path),
  get_selection: (ctx: ToolContext) => finderSelection(ctx.signal),
  list_dir: (ctx: ToolContext, input: { path?: string }) => listDir(ctx.workdir, input.path),
};
