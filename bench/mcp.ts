/**
 * MCP call overhead: median µs per call of a trivial `echo` tool on the same stdio MCP server (a Bun process),
 * called (a) through our pipeline — the mcp extension's registered tool run by ToolExecutor.execute (guard,
 * validation, handler, result mapping) over its process-group stdio transport — and (b) by the SDK's Client with
 * its own StdioClientTransport, directly. Prints both and the ratio; `--json` prints the row as JSON, and
 * `npm run bench` shows it in its table.
 * Usage: npm run bench:mcp [-- --json]
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fixtureServer, startBridge, stdioServer } from '../packages/base/extensions/mcp/__fixtures__/harness.ts';
import { median, percentile, report } from './harness.ts';

const warmup = 300;
const rounds = 20;
const perRound = 100;

const ours = await startBridge({ servers: [stdioServer('bench')] });
const oursCall = async () => {
  const result = await ours.call('bench__echo', { text: 'hi' });
  if (result.status !== 'ok' || result.output !== 'hi') throw new Error(`unexpected ${JSON.stringify(result)}`);
};

const sdkClient = new Client({ name: 'bench', version: '1.0.0' });
await sdkClient.connect(
  new StdioClientTransport({ command: process.execPath, args: [fixtureServer], stderr: 'ignore' }),
);
const sdkCall = async () => {
  const result = await sdkClient.callTool({ name: 'echo', arguments: { text: 'hi' } });
  if ((result.content as { text: string }[])[0]?.text !== 'hi') throw new Error(`unexpected ${JSON.stringify(result)}`);
};

for (let index = 0; index < warmup; index += 1) {
  await oursCall();
  await sdkCall();
}

// Alternating rounds, so drift (CPU frequency, GC, the other process) falls on both sides alike.
const samples = { ours: [] as number[], sdk: [] as number[] };
for (let round = 0; round < rounds; round += 1) {
  for (const [side, call] of [
    ['ours', oursCall],
    ['sdk', sdkCall],
  ] as const) {
    for (let index = 0; index < perRound; index += 1) {
      const start = Bun.nanoseconds();
      await call();
      samples[side].push((Bun.nanoseconds() - start) / 1000);
    }
  }
}

await ours.close();
await sdkClient.close();

const oursMedian = median(samples.ours);
const sdkMedian = median(samples.sdk);
const results = {
  calls: rounds * perRound,
  pipelineViaMcpExtension: {
    medianUs: Number(oursMedian.toFixed(1)),
    p90Us: Number(percentile(samples.ours, 0.9).toFixed(1)),
  },
  sdkClientDirect: { medianUs: Number(sdkMedian.toFixed(1)), p90Us: Number(percentile(samples.sdk, 0.9).toFixed(1)) },
  overheadUs: Number((oursMedian - sdkMedian).toFixed(1)),
  ratio: Number((oursMedian / sdkMedian).toFixed(2)),
};

report(
  [
    {
      figure: 'MCP tool call over stdio, through our pipeline (mcp extension)',
      unit: 'µs',
      ours: oursMedian,
      oursP99: percentile(samples.ours, 0.99),
      peer: sdkMedian,
      peerP99: percentile(samples.sdk, 0.99),
      peerName: 'MCP SDK Client, direct',
      note: 'ours adds the guard, validation and result mapping; the server is the same process',
    },
  ],
  () => {
    console.log(`MCP call of a trivial echo tool over stdio (${results.calls} calls each, median)`);
    console.log(
      `  our pipeline via the mcp extension  ${results.pipelineViaMcpExtension.medianUs.toFixed(1).padStart(8)} µs/call  (p90 ${results.pipelineViaMcpExtension.p90Us} µs)`,
    );
    console.log(
      `  SDK Client, direct                  ${results.sdkClientDirect.medianUs.toFixed(1).padStart(8)} µs/call  (p90 ${results.sdkClientDirect.p90Us} µs)`,
    );
    console.log(`  ratio ${results.ratio}  (overhead ${results.overheadUs} µs/call)`);
  },
);
