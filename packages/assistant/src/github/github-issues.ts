import { GoondanError } from '@goondan/core/errors';
import type { Octokit } from '@octokit/rest';

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
  const { data } = await octokit.rest.issues.listForRepo({
    ...where,
    state: input.state ?? 'open',
    labels: input.labels?.length ? input.labels.join(',') : undefined,
    sort: 'updated',
    per_page: MAX_LIST,
  });
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
  const { data: issue } = await octokit.rest.issues.get({ ...where, issue_number: input.number });
  const { data: comments } = await octokit.rest.issues.listComments({
    ...where,
    issue_number: input.number,
    per_page: MAX_COMMENTS,
  });
  let pull: Record<string, unknown> | undefined;
  if (issue.pull_request) {
    const { data } = await octokit.rest.pulls.get({ ...where, pull_number: input.number });
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
  const { data } = await octokit.rest.issues.create({
    ...where,
    title: input.title,
    body: input.body,
    labels: input.labels,
  });
  return { repo: `${where.owner}/${where.repo}`, number: data.number, url: data.html_url, title: data.title };
}

/** github__create_pr: base defaults to the repository's default branch. */
export async function createPullRequest(
  octokit: Octokit,
  input: { repo: string; title: string; body?: string; head: string; base?: string },
) {
  const where = parseRepo(input.repo);
  const base = input.base ?? (await octokit.rest.repos.get(where)).data.default_branch;
  const { data } = await octokit.rest.pulls.create({
    ...where,
    title: input.title,
    body: input.body,
    head: input.head,
    base,
  });
  return { repo: `${where.owner}/${where.repo}`, number: data.number, url: data.html_url, head: input.head, base };
}
