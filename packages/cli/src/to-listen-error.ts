import { GoondanError } from '@goondan/core';

/** What the operating system said when the listener could not be opened, in words. */
const reasons: Record<string, string> = {
  EADDRINUSE: 'the port is in use by another process',
  EADDRNOTAVAIL: 'the address is not one of this machine',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EPERM: 'permission denied',
};

/**
 * A failure to open an HTTP listener (`gdn serve`, `gdn trace --serve`, `gdn mcp serve --http`) as
 * E_SERVE_LISTEN_FAILED naming the command, the address and the reason, so the CLI reports
 * it as a coded error (not an unexpected failure, nor a file's E_PATH_ACCESS for EACCES); anything else as it is.
 */
export function toListenError(
  thrown: unknown,
  address: { hostname: string; port: number },
  command = 'gdn serve',
  portFlag = '--port',
): unknown {
  const code = (thrown as { code?: unknown } | null)?.code;
  const syscall = (thrown as { syscall?: unknown } | null)?.syscall;
  if (!(thrown instanceof Error) || typeof code !== 'string' || (syscall !== 'listen' && !(code in reasons))) {
    return thrown;
  }
  const reason = reasons[code] ?? thrown.message;
  const where = address.hostname.includes(':')
    ? `[${address.hostname}]:${address.port}`
    : `${address.hostname}:${address.port}`;
  return new GoondanError('E_SERVE_LISTEN_FAILED', `${command} cannot listen on ${where}: ${reason} (${code}).`, {
    suggestion: `Choose another port (${portFlag} 0 picks a free one) or stop the process that listens there; the host must be an address of this machine.`,
    cause: thrown,
  });
}
