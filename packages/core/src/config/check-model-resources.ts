import { agentParamsIssue, type ModelConfigIssue, modelConfigIssues } from '../models/model-config-issues.ts';
import type { DeclaredResource } from './check-references.ts';
import { problemAt } from './create-problem.ts';
import { parseObjectRef, refKey } from './object-ref.ts';
import type { AgentResource, BundleProblem, ModelResource, Resource } from './resources.ts';

function toProblem(declared: DeclaredResource, issue: ModelConfigIssue): BundleProblem {
  return problemAt(declared.document, {
    code: 'E_MODEL_CONFIG',
    path: issue.path,
    message: issue.message,
    ...(issue.suggestion ? { suggestion: issue.suggestion } : {}),
  });
}

/**
 * The Model checks `gdn run` makes when it builds the provider adapter, made at validation instead (E_MODEL_CONFIG
 * at the field): each Model's spec, and each Agent's modelConfig.params against the Model it names.
 */
export function checkModelResources(
  declared: readonly DeclaredResource[],
  resources: Map<string, Resource>,
): BundleProblem[] {
  const problems: BundleProblem[] = [];
  for (const entry of declared) {
    if (entry.resource.kind === 'Model') {
      for (const issue of modelConfigIssues(entry.resource as ModelResource)) problems.push(toProblem(entry, issue));
    } else if (entry.resource.kind === 'Agent') {
      const modelConfig = (entry.resource as AgentResource).spec.modelConfig;
      const ref = parseObjectRef(modelConfig?.modelRef);
      const model = ref ? resources.get(refKey('Model', ref.name)) : undefined;
      if (model?.kind !== 'Model') continue;
      const issue = agentParamsIssue(model as ModelResource, modelConfig?.params);
      if (issue) problems.push(toProblem(entry, issue));
    }
  }
  return problems;
}
