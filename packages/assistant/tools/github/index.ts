/**
 * github__* (docs/assistant-pack-2.md#github) on Octokit. Without a grant yet, a call answers the OAuth host's
 * authorization_required (the link or device code to show the person) instead of calling GitHub.
 */
import type { ToolContext } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import type { Octokit } from '@octokit/rest';
import { DEFAULT_GITHUB_API, githubClient } from '../../src/github/github-client.ts';
import { githubError } from '../../src/github/github-errors.ts';
import { createIssue, createPullRequest, listIssues, viewIssue } from '../../src/github/github-issues.ts';

function withGitHub<Input extends { repo: string }>(
  what: string,
  call: (octokit: Octokit, input: Input) => Promise<unknown>,
) {
  return async (ctx: ToolContext, input: Input) => {
    const client = await githubClient(ctx);
    if (client.status !== 'ready') return client;
    try {
      return await call(client.octokit, input);
    } catch (thrown) {
      if (ctx.signal.aborted) throw new GoondanError('E_TOOL_ABORTED', `The call to GitHub was cancelled.`);
      const baseUrl = typeof ctx.config.baseUrl === 'string' ? ctx.config.baseUrl : DEFAULT_GITHUB_API;
      throw githubError(thrown, { baseUrl, credential: client.credential, what: `${what} ${input.repo}` });
    }
  };
}

export const handlers = {
  list_issues: withGitHub('list issues of', listIssues),
  view: withGitHub('view', viewIssue),
  create_issue: withGitHub('create an issue in', createIssue),
  create_pr: withGitHub('create a pull request in', createPullRequest),
};
