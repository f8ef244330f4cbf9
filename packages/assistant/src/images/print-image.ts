import { open } from 'node:fs/promises';
import { resolveInsideWorkdir, scrubEnvironment } from '@goondan/base';
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';

const LP_TIMEOUT_MS = 30_000;

/** The image kinds lp is handed, recognised by their first bytes (not their name). */
const signatures: [string, (head: Buffer) => boolean][] = [
  ['PNG', (h) => h.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['JPEG', (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff],
  ['GIF', (h) => h.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['WebP', (h) => h.subarray(0, 4).toString('latin1') === 'RIFF' && h.subarray(8, 12).toString('latin1') === 'WEBP'],
  ['PDF', (h) => h.subarray(0, 5).toString('latin1') === '%PDF-'],
];

async function kindOf(path: string): Promise<string | undefined> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(16);
    await file.read(head, 0, 16, 0);
    return signatures.find(([, matches]) => matches(head))?.[0];
  } finally {
    await file.close();
  }
}

/**
 * image__print: hands an image of the workdir to CUPS with `lp` (the Tool's config.printer, else the default
 * printer). Only PNG, JPEG, GIF, WebP and PDF files are printed. lp missing is E_TOOL_UNAVAILABLE; lp refusing
 * (no printer, scheduler down) E_PRINT_FAILED quoting it.
 */
export async function printImage(ctx: ToolContext, input: { image_path: string; copies?: number }) {
  const target = await resolveInsideWorkdir(ctx.workdir, input.image_path);
  if (!target.exists)
    throw new GoondanError('E_FILE_NOT_FOUND', `'${target.relativePath}' does not exist in the workdir.`);
  const kind = await kindOf(target.realPath).catch(() => undefined);
  if (!kind) {
    throw new GoondanError(
      'E_TOOL_INVALID_ARGS',
      `'${target.relativePath}' is not a PNG, JPEG, GIF, WebP or PDF file.`,
    );
  }
  const env = scrubEnvironment(process.env) as Record<string, string>;
  const lp = Bun.which('lp', { PATH: env.PATH ?? '' });
  if (!lp) {
    throw new GoondanError('E_TOOL_UNAVAILABLE', 'lp (the CUPS client) is not installed on this machine.', {
      suggestion: 'Install it (Debian: apt-get install cups-client; macOS has it) and set up a printer.',
    });
  }
  const printer = typeof ctx.config.printer === 'string' && ctx.config.printer !== '' ? ctx.config.printer : undefined;
  const copies = Math.min(Math.max(1, Math.floor(input.copies ?? 1)), 10);
  const args = [
    ...(printer ? ['-d', printer] : []),
    '-n',
    String(copies),
    '-t',
    target.relativePath,
    '--',
    target.realPath,
  ];
  const proc = Bun.spawn([lp, ...args], {
    env,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: LP_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    signal: ctx.signal,
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (exitCode !== 0) {
    const said = (stderr || stdout).trim().split('\n').slice(-2).join(' ').slice(0, 300) || `exit ${exitCode}`;
    throw new GoondanError('E_PRINT_FAILED', `lp failed: ${said}`);
  }
  const request = /request id is (\S+)/.exec(stdout)?.[1] ?? null;
  return { printed: target.relativePath, kind, copies, printer: printer ?? '(default)', request };
}
