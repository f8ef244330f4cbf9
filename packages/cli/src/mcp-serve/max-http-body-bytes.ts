/** Largest request body (one JSON-RPC message or batch): 4 MiB, the SDK's default, written down as ours. */
export const MAX_HTTP_BODY_BYTES = 4 * 1024 * 1024;
