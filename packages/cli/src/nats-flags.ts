import type { NatsConfig } from '@goondan/core';

/** The flags `gdn serve` and `gdn worker` take for NATS (docs/transport.md#configuration). */
export const natsFlagSpec = {
  nats: { type: 'string' },
  namespace: { type: 'string' },
  'nats-creds': { type: 'string' },
  'nats-nkey': { type: 'string' },
  'nats-ca': { type: 'string' },
  'nats-cert': { type: 'string' },
  'nats-key': { type: 'string' },
  'shared-state': { type: 'boolean' },
} as const;

export const natsFlagsHelp = `  --nats URL       NATS server(s), comma-separated (default: GOONDAN_NATS_URL); see docs/transport.md
  --namespace N    what the swarm's subjects, stream and lease bucket are named after (default: the Swarm's name)
  --nats-creds F   a .creds file (JWT + NKey seed)      --nats-nkey F   a file holding an NKey user seed
  --nats-ca F      CA to trust (TLS)                    --nats-cert F / --nats-key F   client certificate and key
                   (a token comes from GOONDAN_NATS_TOKEN, a user and password from GOONDAN_NATS_USER / _PASS)`;

type NatsFlagValues = {
  [K in keyof typeof natsFlagSpec]?: (typeof natsFlagSpec)[K]['type'] extends 'boolean' ? boolean : string;
};

/**
 * The NATS config of the flags and environment, or null when NATS is not configured (neither --nats nor
 * GOONDAN_NATS_URL): the IPC transport, and no NATS client is loaded.
 */
export function natsConfigOf(
  values: NatsFlagValues,
  env: Record<string, string | undefined> = process.env,
): (NatsConfig & { namespace?: string }) | null {
  const servers = values.nats ?? env.GOONDAN_NATS_URL;
  if (!servers) return null;
  const tls =
    values['nats-ca'] || values['nats-cert'] || values['nats-key']
      ? {
          ...(values['nats-ca'] ? { caFile: values['nats-ca'] } : {}),
          ...(values['nats-cert'] ? { certFile: values['nats-cert'] } : {}),
          ...(values['nats-key'] ? { keyFile: values['nats-key'] } : {}),
        }
      : undefined;
  return {
    servers,
    ...(values.namespace ? { namespace: values.namespace } : {}),
    ...(values['nats-creds'] ? { credsFile: values['nats-creds'] } : {}),
    ...(values['nats-nkey'] ? { nkeySeedFile: values['nats-nkey'] } : {}),
    ...(env.GOONDAN_NATS_TOKEN ? { token: env.GOONDAN_NATS_TOKEN } : {}),
    ...(env.GOONDAN_NATS_USER ? { user: env.GOONDAN_NATS_USER, pass: env.GOONDAN_NATS_PASS ?? '' } : {}),
    ...(tls ? { tls } : {}),
    ...(values['shared-state'] ? { sharedState: true } : {}),
  };
}

/** The server list for a log line, without credentials written into the URLs (`nats://user:pass@host`). */
export function natsServersLabel(servers: NatsConfig['servers']): string {
  return String(servers).replace(/([a-z]+:\/\/)?[^@/,]*@/gi, (_whole, scheme: string | undefined) => scheme ?? '');
}
