// Network namespaces on this machine as stand-in hosts (root only): a bridge with an address for the host side
// and one namespace per "machine", each joined to the bridge by a veth pair. Nothing leaves the machine.

export interface Hosts {
  /** The host side's address on the bridge (nats-server listens here). */
  hostAddress: string;
  /** Namespace names, one per machine. */
  namespaces: string[];
  /** Pids of the processes running in namespace `name`. */
  pids(name: string): Promise<number[]>;
  remove(): Promise<void>;
}

async function ip(...args: string[]): Promise<string> {
  const child = Bun.spawn(['ip', ...args], { stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`ip ${args.join(' ')} failed (${code}): ${err.trim()}`);
  return out;
}

/** Creates `count` namespaces; throws saying why when this machine cannot (not root, no `ip`, no netns support). */
export async function createHosts(count: number): Promise<Hosts> {
  if (!Bun.which('ip'))
    throw new Error('the multi-host test needs the `ip` command (iproute2) to create network namespaces');
  if (process.getuid?.() !== 0) throw new Error('the multi-host test creates network namespaces and must run as root');
  const tag = String(process.pid % 100000);
  const subnet = `10.251.${(process.pid % 200) + 20}`;
  const bridge = `gdnb${tag}`;
  const namespaces = Array.from({ length: count }, (_, index) => `gdn${tag}n${index}`);
  const remove = async () => {
    for (const [index, name] of namespaces.entries()) {
      await ip('link', 'del', `gdn${tag}h${index}`).catch(() => {});
      await ip('netns', 'del', name).catch(() => {});
    }
    await ip('link', 'del', bridge).catch(() => {});
  };
  try {
    await ip('link', 'add', bridge, 'type', 'bridge');
    await ip('addr', 'add', `${subnet}.1/24`, 'dev', bridge);
    await ip('link', 'set', bridge, 'up');
    for (const [index, name] of namespaces.entries()) {
      const hostEnd = `gdn${tag}h${index}`;
      const nsEnd = `gdn${tag}v${index}`;
      await ip('netns', 'add', name);
      await ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', nsEnd);
      await ip('link', 'set', hostEnd, 'master', bridge, 'up');
      await ip('link', 'set', nsEnd, 'netns', name);
      await ip('-n', name, 'addr', 'add', `${subnet}.${index + 2}/24`, 'dev', nsEnd);
      await ip('-n', name, 'link', 'set', nsEnd, 'up');
      await ip('-n', name, 'link', 'set', 'lo', 'up');
    }
  } catch (thrown) {
    await remove();
    throw new Error(`could not create network namespaces for the multi-host test: ${(thrown as Error).message}`);
  }
  return {
    hostAddress: `${subnet}.1`,
    namespaces,
    pids: async (name) => (await ip('netns', 'pids', name)).split('\n').filter(Boolean).map(Number),
    remove,
  };
}
