// A gdn worker in a process of its own (for tests that kill it, or run it in another network namespace):
// argv URL NAMESPACE LIBRARY LEASE_TTL_MS. Prints `ready WORKER_ID`, then one line per instance it takes or ends.
import { startNatsWorker } from '@goondan/core';

const [servers, namespace, library, ttl] = process.argv.slice(2) as [string, string, string, string];
const worker = await startNatsWorker({
  nats: { servers, namespace, leaseTtlMs: Number(ttl) },
  libraries: [library],
  log: (line) => console.log(line),
});
console.log(`ready ${worker.workerId}`);
process.on('SIGTERM', () => {
  void worker.close().then(() => process.exit(0));
});
