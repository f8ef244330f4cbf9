import { DavAuthorizationPending } from './dav-session.ts';

/** A DAV tool's answer: its result, or, when an OAuth token is not ready, what the person has to do (no secret). */
export async function answerPendingAuthorization<T>(
  work: () => Promise<T>,
): Promise<T | DavAuthorizationPending['result']> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DavAuthorizationPending) return error.result;
    throw error;
  }
}
