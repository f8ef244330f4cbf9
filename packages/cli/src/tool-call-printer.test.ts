import { expect, test } from 'bun:test';
import type { ToolResult } from '@goondan/core';
import { shortArgs, toolCallPrinter } from './tool-call-printer.ts';

test('the start line shows no password, bearer token or URL credentials from the arguments', () => {
  const lines: string[] = [];
  const printer = toolCallPrinter({ write: (line) => lines.push(line), color: false });
  printer.onToolCallStart?.({
    toolCallId: 'c1',
    toolName: 'http-fetch__get',
    args: { password: 'hunter2', headers: 'Authorization: Bearer xyzTok3nValue', url: 'https://me:s3cret@host/' },
  });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith('  ⚙ http-fetch__get {"password":"[REDACTED]"');
  for (const secret of ['hunter2', 'xyzTok3nValue', 's3cret']) expect(lines[0]).not.toContain(secret);
});

test('arguments are redacted before they are cut, so a cut never leaves the start of a secret', () => {
  const text = shortArgs({ note: 'x'.repeat(30), token: 'abcdefghijklmnopqrstuvwxyz0123456789' }, 80);
  expect(text).toBe('{"note":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx","token":"[REDACTED]"}');
  expect(shortArgs('run --password swordfish1 now')).toBe('run --password [REDACTED] now');
});

test('the end line names the status, not the output', () => {
  const lines: string[] = [];
  const printer = toolCallPrinter({ write: (line) => lines.push(line), color: false });
  const result = { status: 'ok', output: { secret: 'shown nowhere' } } as unknown as ToolResult;
  printer.onToolCallEnd?.({ toolCallId: 'c1', toolName: 'calc__add', result, durationMs: 3 });
  expect(lines).toEqual(['  ↳ calc__add ok 3ms']);
});

test('the end line of a failed call shows no credentials quoted in its error', () => {
  const lines: string[] = [];
  const printer = toolCallPrinter({ write: (line) => lines.push(line), color: false });
  const result = {
    status: 'error',
    error: { code: 'E_TOOL', message: 'GET https://me:s3cretPass@example.com/ with Bearer xyzTok3nValue failed' },
  } as unknown as ToolResult;
  printer.onToolCallEnd?.({ toolCallId: 'c1', toolName: 'http-fetch__get', result, durationMs: 3 });
  expect(lines).toHaveLength(1);
  for (const secret of ['s3cretPass', 'xyzTok3nValue']) expect(lines[0]).not.toContain(secret);
});

test("a tool name, arguments or error of the model's with escape sequences are printed without them", () => {
  const lines: string[] = [];
  const printer = toolCallPrinter({ write: (line) => lines.push(line), color: false });
  const toolName = '../x\u001b]52;c;cHduZWQ=\u0007';
  printer.onToolCallStart?.({ toolCallId: 'c1', toolName, args: '\u001b[2J{broken' });
  const result = {
    status: 'error',
    error: { code: 'E_TOOL_NOT_IN_CATALOG', message: `Tool '${toolName}' is not available` },
  } as unknown as ToolResult;
  printer.onToolCallEnd?.({ toolCallId: 'c1', toolName, result, durationMs: 3 });
  expect(lines).toHaveLength(2);
  for (const line of lines) for (const control of ['\u001b', '\u0007']) expect(line).not.toContain(control);
  expect(lines[0]).toBe('  ⚙ ../x\ufffd]52;c;cHduZWQ=\ufffd \ufffd[2J{broken');
});

test('raw arguments a model sent as text carry none of its escape sequences', () => {
  expect(shortArgs('\u001b]0;title\u0007 rm -rf', 80)).toBe('\ufffd]0;title\ufffd rm -rf');
});
