import { open, stat } from 'node:fs/promises';
import type { ToolContext, ToolHandler } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { resolveInsideWorkdir } from '../../src/resolve-inside-workdir.ts';
import { type ProcessResult, runProcess } from './run-process.ts';

/** Default and ceiling of a command's own timeout. */
export const DEFAULT_BASH_TIMEOUT_MS = 30_000;
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** Cap on stdout and on stderr, each; the head is kept. */
export const MAX_OUTPUT_BYTES = 64 * 1024;

interface ExecInput {
  command: string;
  timeoutMs?: number;
}

interface ScriptInput {
  path: string;
  args?: string[];
  timeoutMs?: number;
}

function timeoutOf(requested: number | undefined): number {
  if (requested === undefined || !Number.isFinite(requested)) return DEFAULT_BASH_TIMEOUT_MS;
  return Math.min(Math.max(1, Math.floor(requested)), MAX_BASH_TIMEOUT_MS);
}

/**
 * The interpreter a script asks for: its `#!` line (interpreter plus at most one argument, as Linux reads it),
 * else `sh`. Running through the interpreter means the script needs no execute bit.
 */
async function interpreterOf(realPath: string): Promise<string[]> {
  const handle = await open(realPath, 'r');
  try {
    const buffer = new Uint8Array(256);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const head = new TextDecoder().decode(buffer.subarray(0, bytesRead));
    if (!head.startsWith('#!')) return ['sh'];
    const line = head.slice(2).split('\n', 1)[0]!.trim();
    const match = /^(\S+)(?:\s+(.+))?$/.exec(line);
    if (!match) return ['sh'];
    return match[2] === undefined ? [match[1]!] : [match[1]!, match[2].trim()];
  } finally {
    await handle.close();
  }
}

async function exec(ctx: ToolContext, input: ExecInput): Promise<ProcessResult> {
  return runProcess({
    argv: ['sh', '-c', input.command],
    cwd: ctx.workdir,
    timeoutMs: timeoutOf(input.timeoutMs),
    signal: ctx.signal,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
}

async function script(ctx: ToolContext, input: ScriptInput): Promise<ProcessResult> {
  const target = await resolveInsideWorkdir(ctx.workdir, input.path);
  if (!target.exists) throw new GoondanError('E_FILE_NOT_FOUND', `No script at '${target.relativePath}'.`);
  const stats = await stat(target.realPath);
  if (!stats.isFile()) throw new GoondanError('E_BASH_SPAWN', `'${target.relativePath}' is not a regular file.`);
  const interpreter = await interpreterOf(target.realPath);
  return runProcess({
    argv: [...interpreter, target.realPath, ...(input.args ?? []).map(String)],
    cwd: ctx.workdir,
    timeoutMs: timeoutOf(input.timeoutMs),
    signal: ctx.signal,
    maxOutputBytes: MAX_OUTPUT_BYTES,
  });
}

export const handlers: Record<string, ToolHandler> = { exec, script };
