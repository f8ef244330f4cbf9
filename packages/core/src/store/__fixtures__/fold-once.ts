// Child process of the crash tests: appends <count> messages of <bytes> characters without compacting (unless the
// database already holds them), prints "folding" and folds them into a new base, then prints "folded". The
// parent kills it with SIGKILL while it folds. Usage: bun fold-once.ts <db-path> <count> <bytes>
import { writeSync } from 'node:fs';
import { ConversationStore } from '../conversation-store.ts';
import { openInstanceDatabase } from '../open-instance-database.ts';

const [dbPath, countArg, bytesArg] = process.argv.slice(2);
if (dbPath === undefined || countArg === undefined || bytesArg === undefined)
  throw new Error('usage: fold-once.ts <db-path> <count> <bytes>');

const conversation = new ConversationStore(openInstanceDatabase(dbPath), { compactAfterEvents: 0 });
const padding = 'x'.repeat(Number(bytesArg));
const have = conversation.load().length;
const messages = [];
for (let index = have; index < Number(countArg); index++) {
  messages.push({
    id: `m-${index}`,
    data: { role: 'assistant' as const, content: [{ type: 'text' as const, text: `m-${index} ${padding}` }] },
    metadata: { index },
    createdAt: new Date(),
    source: { type: 'assistant' as const, stepId: `step-${index}` },
  });
}
for (let at = 0; at < messages.length; at += 100) conversation.appendMany(messages.slice(at, at + 100));
writeSync(1, 'folding\n');
const result = conversation.compact();
writeSync(1, `folded ${result.foldedEvents}\n`);
