// Runs an orchestrator in a process of its own, for the test that kills it with SIGKILL: prints the pids of the
// agent processes it started as one JSON line, then waits to be killed.
import { loadBundle, Orchestrator, resolveSwarm } from '@goondan/core';

const [dir, base] = process.argv.slice(2) as [string, string];
const { bundle } = await loadBundle({ dir, libraries: [base] });
const orchestrator = new Orchestrator({
  bundle: bundle!,
  topology: resolveSwarm(bundle!)!,
  instanceKey: 'default',
  libraries: [base],
  stateFile: null,
});
const pids = await Promise.all([orchestrator.spawn('coordinator'), orchestrator.spawn('worker')]);
console.log(JSON.stringify(pids.map((info) => info.pid)));
setInterval(() => {}, 1000);
