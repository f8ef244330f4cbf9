import type { ModelResource } from '../config/resources.ts';
import { GoondanError } from '../errors/goondan-error.ts';
import type { JsonObject } from '../types.ts';
import { modelCallSettings } from './model-call-settings.ts';
import { parseScriptedSteps } from './parse-scripted-steps.ts';

/** Something about a Model (or an Agent's params for it) that the provider adapters refuse; `path` is in the document. */
export interface ModelConfigIssue {
  path: (string | number)[];
  message: string;
  suggestion?: string;
}

/** Why a baseURL cannot be used, or null when it is an absolute http(s) URL. */
export function baseURLIssue(baseURL: string): string | null {
  let url: URL | undefined;
  try {
    url = new URL(baseURL);
  } catch {
    url = undefined;
  }
  if (url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:')) return null;
  return `spec.baseURL '${baseURL}' is not an absolute http:// or https:// URL; write the server's API root, e.g. http://localhost:11434/v1.`;
}

/** `spec.params.temperature` or `spec.script[0].txt` at the start of a message, as a field path. */
function leadingFieldPath(message: string, prefix: (string | number)[]): (string | number)[] {
  const match = /(?:^|\s)(spec\.[\w.[\]]+?)(?=\s|$)/.exec(message);
  if (!match) return prefix;
  const path: (string | number)[] = [];
  for (const part of match[1]!.matchAll(/([^.[\]]+)|\[(\d+)\]/g))
    path.push(part[2] !== undefined ? Number(part[2]) : part[1]!);
  return path;
}

function caught(thrown: unknown, fallbackPath: (string | number)[]): ModelConfigIssue {
  if (!(thrown instanceof GoondanError)) throw thrown;
  return {
    path: leadingFieldPath(thrown.message, fallbackPath),
    message: thrown.message,
    suggestion: thrown.suggestion,
  };
}

/**
 * What `createLanguageModel` and `modelCallSettings` would refuse about a Model, as data, so `gdn validate` reports
 * it before anything runs: an empty model name, openai-compatible without baseURL, a baseURL that is not an http(s)
 * URL, a scripted Model's script, params of the wrong type. API keys are not checked here: they come from the
 * environment of the run.
 */
export function modelConfigIssues(resource: ModelResource): ModelConfigIssue[] {
  const { spec, metadata } = resource;
  const issues: ModelConfigIssue[] = [];
  if (typeof spec.model !== 'string' || spec.model.trim() === '') {
    issues.push({
      path: ['spec', 'model'],
      message: `Model '${metadata.name}': spec.model must name the model to use.`,
    });
  }
  if (typeof spec.baseURL === 'string') {
    const issue = baseURLIssue(spec.baseURL);
    if (issue) issues.push({ path: ['spec', 'baseURL'], message: `Model '${metadata.name}': ${issue}` });
  } else if (spec.provider === 'openai-compatible') {
    issues.push({
      path: ['spec', 'provider'],
      message: `Model '${metadata.name}' uses provider openai-compatible but has no spec.baseURL; set it to the server's API root, e.g. http://localhost:11434/v1 (Ollama) or http://localhost:8000/v1 (vLLM).`,
    });
  }
  if (spec.provider === 'scripted') {
    try {
      parseScriptedSteps(spec.script, `Model '${metadata.name}' spec.script`);
    } catch (thrown) {
      issues.push(caught(thrown, ['spec', 'script']));
    }
  }
  try {
    modelCallSettings(resource);
  } catch (thrown) {
    issues.push(caught(thrown, ['spec', 'params']));
  }
  return issues;
}

/** What modelCallSettings would refuse about an Agent's `modelConfig.params` for this Model. */
export function agentParamsIssue(
  resource: ModelResource,
  agentParams: JsonObject | undefined,
): ModelConfigIssue | null {
  if (agentParams === undefined) return null;
  try {
    modelCallSettings({ ...resource, spec: { ...resource.spec, params: {} } }, agentParams);
    return null;
  } catch (thrown) {
    // The message names the field: "Agent spec.modelConfig.params.temperature must be a number."
    return caught(thrown, ['spec', 'modelConfig', 'params']);
  }
}
