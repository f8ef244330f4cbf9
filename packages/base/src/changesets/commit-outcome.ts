import { type ErrorCode, errorCodes, helpUrlFor } from '@goondan/core';
import type { ChangesetSize } from './changeset-limits.ts';
import type { FinishedActivation } from './finish-activation.ts';

/** One file the change touches, relative to the bundle directory. */
export interface ChangedFile {
  path: string;
  change: 'added' | 'modified' | 'deleted';
}

/** One validation problem of the changed bundle, the file relative to the changeset's bundle directory. */
export interface ChangesetProblem {
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
}

interface Coded {
  code: ErrorCode;
  message: string;
  suggestion: string;
  helpUrl: string;
}

/**
 * The answer of a commit (v1 §12.4 rule 1): exactly one of ok, rejected, conflict, failed (`rejected` with code
 * E_CHANGESET_TOO_LARGE when the changeset is over a limit, changeset-limits.ts). An `ok` whose
 * `revision` equals `previous` (and `changed` is empty) changed nothing: no revision was made. `finishedActivation`:
 * an earlier activation, interrupted before the files followed it, was finished first.
 */
export type CommitOutcome =
  | {
      status: 'ok';
      changeset: string;
      revision: string;
      previous: string;
      merged: boolean;
      changed: ChangedFile[];
      finishedActivation?: FinishedActivation;
    }
  | ({
      status: 'rejected';
      changeset: string;
      problems: ChangesetProblem[];
      outsidePolicy: string[];
      /** A changeset over a limit (code E_CHANGESET_TOO_LARGE): what it holds, paths bundle-relative. */
      tooLarge?: ChangesetSize;
    } & Coded)
  | ({ status: 'conflict'; changeset: string; active: string; files: string[] } & Coded)
  | ({ status: 'failed'; changeset: string } & Coded);

/**
 * What is left after an answer other than `ok`: the changeset stays open to fix and commit again (the
 * swarm-bundle tools), or it is discarded and the whole change is made again (`retry` says how, e.g.
 * "call the tool again"). The suggestions of the answer follow it.
 */
export type AfterFailure = { type: 'keep' } | { type: 'discard'; retry: string };

export function coded(code: ErrorCode, message: string, suggestion?: string): Coded {
  return { code, message, suggestion: suggestion ?? errorCodes[code].suggestion, helpUrl: helpUrlFor(code) };
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `fix` is what to fix (no full stop); the rest says what to do next, as true for what is left. */
export function failedSuggestion(fix: string | undefined, after: AfterFailure): string {
  const what = (fix ?? 'Read the message and fix what it names').replace(/\.$/, '');
  return after.type === 'keep'
    ? `${what}, then commit the changeset again; it is still open.`
    : `${what}, then ${after.retry}. The changeset was discarded; nothing was changed.`;
}

export function conflictOutcome(options: {
  changeset: string;
  active: string;
  files: string[];
  after: AfterFailure;
  /** What happened, when it is not two changes of the same lines (the active branch was rewritten). */
  message?: string;
}): CommitOutcome {
  const { changeset, active, files, after } = options;
  const short = active.slice(0, 12);
  const message =
    options.message ??
    `The active bundle moved to ${short} since the changeset started, and both changed ${files.join(', ')}.`;
  // A changeset merges from the revision it was opened at, so editing it again conflicts again: only a changeset
  // opened at the active revision (which has the other change) can take the edit.
  const why = options.message
    ? 'however it is edited: it still holds the revisions it was opened at'
    : 'however it is edited, while it changes those lines: it still merges from the revision it was opened at';
  const has = options.message ? 'as the branch is now' : 'which has the other change';
  const suggestion =
    after.type === 'keep'
      ? `Committing '${changeset}' again conflicts again, ${why}. Read your version in its workdir if you need it, discard it (swarm-bundle__discard_changeset {"changeset":"${changeset}"}), open it again (swarm-bundle__open_changeset {"name":"${changeset}"} starts at the active revision ${short}, ${has}) and redo your edit there.`
      : `The changeset was discarded; nothing was changed. ${sentence(after.retry)}: it starts from the active revision ${short}, ${has}.`;
  return { status: 'conflict', changeset, active, files, ...coded('E_CHANGESET_CONFLICT', message, suggestion) };
}

export function rejectedSuggestion(after: AfterFailure): string | undefined {
  return after.type === 'keep'
    ? undefined
    : `The changeset was discarded; nothing was changed. The change would leave the bundle as the problems say: change what they name, then ${after.retry}.`;
}
