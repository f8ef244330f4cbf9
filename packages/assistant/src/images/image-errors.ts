import { GoondanError } from '@goondan/core/errors';
import { retryAfterSeconds, serviceHttpError, serviceUnreachable } from '../services/service-errors.ts';

interface ApiFailure {
  name?: string;
  message?: string;
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  lastError?: unknown;
  url?: string;
}

/** The AI SDK's failures of an image call as coded errors (a RetryError is judged by its last attempt). */
export function imageError(thrown: unknown, options: { service: string; baseUrl: string; credential: string }): Error {
  if (thrown instanceof GoondanError) return thrown;
  const failure = ((thrown as ApiFailure)?.lastError ?? thrown) as ApiFailure;
  const name = failure?.name ?? '';
  if (name === 'AI_NoImageGeneratedError' || name === 'AI_TypeValidationError' || name === 'AI_JSONParseError') {
    return new GoondanError(
      'E_SERVICE_RESPONSE_INVALID',
      `${options.service} answered no usable image: ${failure.message}`,
    );
  }
  if (name === 'AI_APICallError' && failure.statusCode === undefined) {
    return serviceUnreachable(options.service, options.baseUrl, failure);
  }
  if (name === 'AI_APICallError' && failure.statusCode !== undefined && failure.statusCode < 300) {
    return new GoondanError(
      'E_SERVICE_RESPONSE_INVALID',
      `${options.service} answered something unreadable: ${failure.message}`,
    );
  }
  if (name === 'AI_APICallError' && failure.statusCode !== undefined) {
    return serviceHttpError({
      service: options.service,
      status: failure.statusCode,
      body: failure.responseBody ?? failure.message,
      retryAfter: retryAfterSeconds(failure.responseHeaders?.['retry-after']),
      credential: options.credential,
    });
  }
  if (name === 'AI_DownloadError') {
    return new GoondanError('E_SERVICE_FAILED', `The generated image could not be downloaded: ${failure.message}`);
  }
  return new GoondanError('E_SERVICE_FAILED', `${options.service}: ${failure?.message ?? String(thrown)}`);
}
