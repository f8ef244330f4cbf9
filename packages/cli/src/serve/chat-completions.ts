import { errorCodes, helpUrlFor, instancePaths, newId, type TurnResult } from '@goondan/core';
import { apiErrorBody, apiErrorResponse, errorTypeFor } from './api-error.ts';
import { parseChatCompletionRequest } from './chat-completion-request.ts';
import { readJsonBody } from './read-json-body.ts';
import { checkServedAgent, type ServeContext } from './serve-context.ts';

const HTTP_SOURCE = { kind: 'user', name: 'http' } as const;
/**
 * Failures that leave nothing done when the turn had not started: an OpenAI client may send the request again (it
 * does by itself). A turn that started and was then stopped (killed at the end of the grace period) stored its input.
 */
const retryable = new Set(['E_AGENT_SHUTTING_DOWN', 'E_INSTANCE_BUSY']);

function finishReason(result: TurnResult): 'stop' | 'length' {
  return result.status === 'max_steps' ? 'length' : 'stop';
}

function usageOf(result: TurnResult) {
  const { inputTokens, outputTokens } = result.usage;
  return { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
}

/** A turn that ended in error (or was cancelled) answers as a coded error, not as a reply. */
function turnFailure(result: TurnResult) {
  const code = result.error?.code ?? 'E_AGENT_TURN_FAILED';
  const message = result.error?.message ?? result.reason ?? `The turn ended ${result.status}.`;
  const known = (errorCodes as Record<string, { suggestion: string } | undefined>)[code];
  const suggestion = result.error?.suggestion ?? known?.suggestion ?? '';
  return { error: { code, type: errorTypeFor(500), message, suggestion, helpUrl: helpUrlFor(code) } };
}

/**
 * POST /v1/chat/completions: `model` names the agent, the last user message is the new input of the instance's
 * conversation (the server keeps the conversation; the rest of `messages` is not replayed). With `stream`, the
 * text is sent as chat.completion.chunk events as the model produces it (every step's text), then `[DONE]`.
 */
export async function chatCompletions(request: Request, context: ServeContext): Promise<Response> {
  const parsed = parseChatCompletionRequest(await readJsonBody(request), request.headers);
  const agent = checkServedAgent(context, parsed.agent);
  const instanceKey = parsed.instanceKey ?? context.defaultInstance;
  instancePaths({ rootDir: context.bundle().rootDir, agentName: agent, instanceKey });
  const eventId = newId('evt');
  const id = `chatcmpl-${eventId}`;
  const created = Math.floor(Date.now() / 1000);
  const abort = new AbortController();
  // x-request-id: what OpenAI clients show as the request's id (the event's, also in the trace).
  const headers = { 'x-goondan-instance': instanceKey, 'x-request-id': eventId };
  // The turn ran (its input is stored, its tools may have acted): OpenAI clients must not send it again by themselves.
  const noRetry = { ...headers, 'x-should-retry': 'false' };
  const turn = () =>
    context.orchestrator.request({
      id: eventId,
      input: parsed.input,
      target: agent,
      instanceKey,
      source: HTTP_SOURCE,
      signal: abort.signal,
      ...(parsed.userId === undefined ? {} : { auth: { userId: parsed.userId } }),
    });
  request.signal.addEventListener('abort', () => abort.abort('the client went away'), { once: true });

  if (!parsed.stream) {
    let result: TurnResult;
    let started = false;
    const unfollow = context.streams.follow(
      eventId,
      () => {},
      () => {
        started = true;
      },
    );
    try {
      result = await turn();
    } catch (thrown) {
      // Refused before it ran (shutting down, the instance held elsewhere): a retry later is right; else not.
      const code = (thrown as { code?: string }).code ?? '';
      return apiErrorResponse(thrown, { headers: retryable.has(code) && !started ? headers : noRetry });
    } finally {
      unfollow();
    }
    if (result.status === 'error' || result.status === 'cancelled') {
      return Response.json(turnFailure(result), { status: 500, headers: noRetry });
    }
    return Response.json(
      {
        id,
        object: 'chat.completion',
        created,
        model: agent,
        choices: [
          { index: 0, message: { role: 'assistant', content: result.text }, finish_reason: finishReason(result) },
        ],
        usage: usageOf(result),
      },
      { headers },
    );
  }

  const encoder = new TextEncoder();
  const chunk = (delta: object, finish: string | null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: agent,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  // Open until the turn's last event is sent or the client goes away; a turn that ends after the client left
  // (its cancellation, usually) has nowhere to send its end, and must not try: enqueue on a closed stream throws.
  let open = true;
  let unfollow = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      const send = (value: object | string) => {
        if (!open) return;
        const data = typeof value === 'string' ? value : JSON.stringify(value);
        try {
          stream.enqueue(encoder.encode(`data: ${data}\n\n`));
        } catch {
          open = false;
        }
      };
      const end = () => {
        send('[DONE]');
        if (open) stream.close();
        open = false;
      };
      send(chunk({ role: 'assistant', content: '' }, null));
      let streamed = false;
      unfollow = context.streams.follow(eventId, (text) => {
        streamed = true;
        send(chunk({ content: text }, null));
      });
      turn().then(
        (result) => {
          unfollow();
          if (result.status === 'error' || result.status === 'cancelled') {
            send(turnFailure(result));
            return end();
          }
          // A turn whose text was not streamed (no deltas reached us) still sends its reply, in one chunk.
          if (!streamed && result.text) send(chunk({ content: result.text }, null));
          send(chunk({}, finishReason(result)));
          if (parsed.includeUsage) send({ ...chunk({}, null), choices: [], usage: usageOf(result) });
          end();
        },
        (thrown) => {
          unfollow();
          send(apiErrorBody(thrown));
          end();
        },
      );
    },
    cancel() {
      open = false;
      unfollow();
      abort.abort('the client went away');
    },
  });
  return new Response(body, {
    headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
  });
}
