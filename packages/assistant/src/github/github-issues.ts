import { GoondanError } from '@goondan/core/errors';
import type { Octokit } from '@octokit/rest';
import { quoteServiceText } from '../services/service-errors.ts';

const MAX_LIST = 30;
const MAX_BODY_CHARS = 4_000;
const MAX_COMMENT_CHARS = 1_000;
const MAX_COMMENTS = 10;

/** `owner/name` → its parts; anything else is E_TOOL_INVALID_ARGS. */
export function parseRepo(repo: string): { owner: string; repo: string } {
  const match = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/.exec(repo.trim());
  if (!match?.[1] || !match[2] || match[2] === '.' || match[2] === '..') {
    throw new GoondanError('E_TOOL_INVALID_ARGS', `'${repo}' is not a repository name.`, {
      suggestion: 'Write the repository as owner/name, e.g. octocat/hello-world.',
    });
  }
  return { owner: match[1], repo: match[2] };
}

/**
 * GitHub's answer when it has the shape the API promises (a list of objects, or one object); anything else (a
 * proxy's sign-in page, JSON of another API) is E_SERVICE_RESPONSE_INVALID quoting its start.
 */
function answer<T>(data: unknown, shape: 'list' | 'object', what: string): T {
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  const fits = shape === 'list' ? Array.isArray(data) && data.every(isObject) : isObject(data);
  if (fits) return data as T;
  const text = typeof data === 'string' ? data : data instanceof ArrayBuffer ? '(binary data)' : JSON.stringify(data);
  throw new GoondanError(
    'E_SERVICE_RESPONSE_INVALID',
    `GitHub did not answer ${what} with a JSON ${shape} (it began: ${JSON.stringify(quoteServiceText(text ?? '').slice(0, 80))}).`,
    {
      suggestion: 'Check that config.baseUrl points at the GitHub API itself (GitHub Enterprise: https://host/api/v3).',
    },
  );
}

function cut(text: string | null | undefined, max: number): string {
  const value = text ?? '';
  return value.length > max ? `${value.slice(0, max)}… (${value.length - max} more characters)` : value;
}

type Label = string | { name?: string | null };
const labelNames = (labels: Label[] | undefined) =>
  (labels ?? []).map((label) => (typeof label === 'string' ? label : (label.name ?? ''))).filter(Boolean);

/** github__list_issues: up to 30 issues (pull requests marked), most recently updated first. */
export async function listIssues(
  octokit: Octokit,
  input: { repo: string; state?: 'open' | 'closed' | 'all'; labels?: string[] },
) {
  const where = parseRepo(input.repo);
  type Issues = Awaited<ReturnType<Octokit['rest']['issues']['listForRepo']>>['data'];
  const listed = await octokit.rest.issues.listForRepo({
    ...where,
    state: input.state ?? 'open',
    labels: input.labels?.length ? input.labels.join(',') : undefined,
    sort: 'updated',
    per_page: MAX_LIST,
  });
  const data = answer<Issues>(listed.data, 'list', 'the issue list');
  return {
    repo: `${where.owner}/${where.repo}`,
    state: input.state ?? 'open',
    issues: data.map((issue) => ({
      number: issue.number,
      title: cut(issue.title, 300),
      state: issue.state,
      author: issue.user?.login ?? null,
      labels: labelNames(issue.labels as Label[]),
      comments: issue.comments,
      updatedAt: issue.updated_at,
      url: issue.html_url,
      pullRequest: Boolean(issue.pull_request),
    })),
    ...(data.length === MAX_LIST
      ? { more: 'Only the 30 most recently updated are shown; narrow with labels or state.' }
      : {}),
  };
}

/** github__view: an issue or pull request with its body and latest comments (a pull request also its branches). */
export async function viewIssue(octokit: Octokit, input: { repo: string; number: number }) {
  const where = parseRepo(input.repo);
  type Issue = Awaited<ReturnType<Octokit['rest']['issues']['get']>>['data'];
  type Comments = Awaited<ReturnType<Octokit['rest']['issues']['listComments']>>['data'];
  type Pull = Awaited<ReturnType<Octokit['rest']['pulls']['get']>>['data'];
  const issue = answer<Issue>(
    (await octokit.rest.issues.get({ ...where, issue_number: input.number })).data,
    'object',
    `issue ${input.number}`,
  );
  const comments = answer<Comments>(
    (await octokit.rest.issues.listComments({ ...where, issue_number: input.number, per_page: MAX_COMMENTS })).data,
    'list',
    'the comments',
  );
  let pull: Record<string, unknown> | undefined;
  if (issue.pull_request) {
    const data = answer<Pull>(
      (await octokit.rest.pulls.get({ ...where, pull_number: input.number })).data,
      'object',
      `pull request ${input.number}`,
    );
    pull = { head: data.head.ref, base: data.base.ref, merged: data.merged, draft: data.draft ?? false };
  }
  return {
    repo: `${where.owner}/${where.repo}`,
    number: issue.number,
    kind: issue.pull_request ? 'pull_request' : 'issue',
    title: issue.title,
    state: issue.state,
    author: issue.user?.login ?? null,
    labels: labelNames(issue.labels as Label[]),
    createdAt: issue.created_at,
    url: issue.html_url,
    body: cut(issue.body, MAX_BODY_CHARS),
    ...(pull ? { pullRequest: pull } : {}),
    comments: comments.map((comment) => ({
      author: comment.user?.login ?? null,
      createdAt: comment.created_at,
      body: cut(comment.body, MAX_COMMENT_CHARS),
    })),
    ...(issue.comments > comments.length ? { moreComments: issue.comments - comments.length } : {}),
  };
}

/** github__create_issue. */
export async function createIssue(
  octokit: Octokit,
  input: { repo: string; title: string; body?: string; labels?: string[] },
) {
  const where = parseRepo(input.repo);
  type Created = Awaited<ReturnType<Octokit['rest']['issues']['create']>>['data'];
  const created = await octokit.rest.issues.create({
    ...where,
    title: input.title,
    body: input.body,
    labels: input.labels,
  });
  const data = answer<Created>(created.data, 'object', 'the new issue');
  return { repo: `${where.owner}/${where.repo}`, number: data.number, url: data.html_url, title: data.title };
}

/** github__create_pr: base defaults to the repository's default branch. */
export async function createPullRequest(
  octokit: Octokit,
  input: { repo: string; title: string; body?: string; head: string; base?: string },
) {
  const where = parseRepo(input.repo);
  type Repository = Awaited<ReturnType<Octokit['rest']['repos']['get']>>['data'];
  type Created = Awaited<ReturnType<Octokit['rest']['pulls']['create']>>['data'];
  const base =
    input.base ??
    answer<Repository>((await octokit.rest.repos.get(where)).data, 'object', 'the repository').default_branch;
  const created = await octokit.rest.pulls.create({
    ...where,
    title: input.title,
    body: input.body,
    head: input.head,
    base,
  });
  const data = answer<Created>(created.data, 'object', 'the new pull request');
  return { repo: `${where.owner}/${where.repo}`, number: data.number, url: data.html_url, head: input.head, base };
}
