import { GoondanError } from '../errors/goondan-error.ts';
import type { ScriptedStep, ScriptedToolCall } from './scripted-model.ts';

const stepKeys = new Set(['text', 'toolCalls', 'error', 'delayMs']);
const toolCallKeys = new Set(['name', 'args', 'id']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, problem: string): never {
  throw new GoondanError('E_MODEL_CONFIG', `${path} ${problem}`, {
    suggestion:
      'Each script step is { text?, toolCalls?: [{ name, args?, id? }], error?, delayMs? }; args is an object, or a string sent verbatim.',
  });
}

function checkKeys(value: Record<string, unknown>, allowed: Set<string>, path: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) fail(`${path}.${key}`, `is not a script field (allowed: ${[...allowed].join(', ')}).`);
  }
}

function parseToolCall(value: unknown, path: string): ScriptedToolCall {
  if (!isRecord(value)) fail(path, 'must be an object { name, args?, id? }.');
  checkKeys(value, toolCallKeys, path);
  const { name, args, id } = value;
  if (typeof name !== 'string' || name === '') fail(`${path}.name`, 'must be a non-empty string (the tool name).');
  if (args !== undefined && typeof args !== 'string' && !isRecord(args)) {
    fail(`${path}.args`, 'must be an object, or a string sent to the model verbatim.');
  }
  if (id !== undefined && typeof id !== 'string') fail(`${path}.id`, 'must be a string.');
  return { name, ...(args === undefined ? {} : { args }), ...(id === undefined ? {} : { id }) };
}

/**
 * Reads a scripted Model's `spec.script` (YAML data) into steps for `createScriptedModel`, refusing unknown fields
 * and wrong types with E_MODEL_CONFIG naming the field path, e.g. `spec.script[1].toolCalls[0].name`.
 */
export function parseScriptedSteps(script: unknown, path = 'spec.script'): ScriptedStep[] {
  if (script === undefined || script === null) return [];
  if (!Array.isArray(script)) fail(path, 'must be a list of steps.');
  return script.map((value, index) => {
    const stepPath = `${path}[${index}]`;
    if (!isRecord(value)) fail(stepPath, 'must be an object { text?, toolCalls?, error?, delayMs? }.');
    checkKeys(value, stepKeys, stepPath);
    const { text, toolCalls, error, delayMs } = value;
    const step: ScriptedStep = {};
    if (text !== undefined) {
      if (typeof text !== 'string') fail(`${stepPath}.text`, 'must be a string.');
      step.text = text;
    }
    if (toolCalls !== undefined) {
      if (!Array.isArray(toolCalls)) fail(`${stepPath}.toolCalls`, 'must be a list.');
      step.toolCalls = toolCalls.map((call, position) => parseToolCall(call, `${stepPath}.toolCalls[${position}]`));
    }
    if (error !== undefined) {
      if (typeof error !== 'string') fail(`${stepPath}.error`, 'must be a string (the simulated provider error).');
      step.error = error;
    }
    if (delayMs !== undefined) {
      if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
        fail(`${stepPath}.delayMs`, 'must be a number of milliseconds, 0 or more.');
      }
      step.delayMs = delayMs;
    }
    return step;
  });
}
