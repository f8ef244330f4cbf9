import type { AddressInfo } from 'node:net';
import { connect, createServer, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'hang' | 'html500';

/** A TCP stand-in for a token endpoint: forwards to the real server, hangs, or answers an HTML error page. */
export interface TokenEndpointProxy {
  /** `http://127.0.0.1:PORT` (append the real server's path, e.g. `/token`). */
  origin: string;
  /** Applies to connections opened from now on; open ones are cut, so no pooled connection keeps the old mode. */
  setMode(mode: ProxyMode): void;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1. `hang` accepts the connection and never answers (the defect of a server stuck behind a
 * load balancer); `html500` answers `500` with an HTML body, as a crashed gateway does; `forward` pipes to `target`.
 */
export async function startTokenEndpointProxy(
  target: string,
  mode: ProxyMode = 'forward',
): Promise<TokenEndpointProxy> {
  const targetUrl = new URL(target);
  const open = new Set<Socket>();
  let accepted = 0;
  let current = mode;
  const server = createServer((socket) => {
    accepted++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => {});
    if (current === 'hang') return;
    if (current === 'html500') {
      socket.once('data', () => {
        const body = '<html><body>Internal Server Error</body></html>';
        socket.end(
          `HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/html\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
        );
      });
      return;
    }
    const upstream = connect(Number(targetUrl.port), targetUrl.hostname);
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setMode(next) {
      current = next;
      for (const socket of open) socket.destroy();
    },
    connections: () => accepted,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
