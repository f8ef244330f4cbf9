// Embedding Goondan in an application (docs/embedding.md): open a bundle, run a turn, stream its events, answer
// an approval. Run it with `npx bun examples/embed/app.ts "Note: milk, bread"`; pass --deny to refuse the call.
// State (conversation, traces, workdir) goes to .goondan/ beside goondan.yaml, or to --state DIR.
import { parseArgs } from 'node:util';
import { baseBundleDir } from '@goondan/base';
import { formatProblems, loadBundle, openAgentInstance, readSourceText, selectAgent, userEvent } from '@goondan/core';

const bundleDir = import.meta.dir;
const { values, positionals } = parseArgs({
  options: { deny: { type: 'boolean' }, state: { type: 'string' } },
  allowPositionals: true,
});
const input = positionals[0] ?? 'Note: milk, bread';
const deny = values.deny === true;

// 1. Open the bundle: its own resources plus the base tools, as gdn does.
const loaded = await loadBundle({ dir: bundleDir, libraries: [baseBundleDir] });
if (!loaded.bundle) {
  const readFile = (file: string) => readSourceText(`${bundleDir}/${file}`);
  console.error(formatProblems(loaded.problems, { color: false, readFile }));
  process.exit(1);
}
const agent = selectAgent(loaded.bundle, 'assistant');
if (!agent) throw new Error('no Agent named assistant');

// 2. Open an instance of the agent: its conversation, traces and workdir live under .goondan/ in the bundle.
const instance = await openAgentInstance({
  bundle: loaded.bundle,
  handlers: loaded.handlers,
  agent,
  instanceKey: 'embed-example',
  ...(values.state ? { stateDir: values.state } : {}),
  // 3. Stream events: every step, tool call, text delta and approval of the turn, as it happens.
  observer: {
    onStepStart: ({ stepIndex, toolNames }) => console.log(`step ${stepIndex} (tools: ${toolNames.join(', ')})`),
    onToolCallStart: ({ toolName, args }) => console.log(`  call ${toolName} ${JSON.stringify(args)}`),
    onToolCallEnd: ({ toolName, result }) => console.log(`  ${toolName} → ${result.status}`),
    // 4. Answer approvals: a real app would ask its user; this one approves unless --deny was given.
    onApprovalRequested: (record) => {
      console.log(`  approval ${record.toolName} (${record.rule}): ${deny ? 'deny' : 'approve'}`);
      instance.answerApproval(record.id, deny ? { action: 'deny', reason: 'not now' } : { action: 'approve' });
    },
  },
});

try {
  const result = await instance.enqueue(userEvent(input, 'embed-example'));
  console.log(`reply (${result.status}, ${result.steps} steps): ${result.text}`);
} finally {
  await instance.close();
}
