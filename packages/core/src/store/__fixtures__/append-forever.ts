// Child process of the crash tests: appends messages until killed, printing each id once its append returned
// (committed). On start it resumes numbering after what the database already holds, as a restarted agent would.
// Usage: bun append-forever.ts <db-path> [compactAfterEvents]
import { writeSync } from 'node:fs';
import { ConversationStore } from '../conversation-store.ts';
import { openInstanceDatabase } from '../open-instance-database.ts';

const [dbPath, compactArg] = process.argv.slice(2);
if (dbPath === undefined) throw new Error('usage: append-forever.ts <db-path> [compactAfterEvents]');

const conversation = new ConversationStore(openInstanceDatabase(dbPath), {
  compactAfterEvents: compactArg === undefined ? undefined : Number(compactArg),
});
const padding = 'x'.repeat(512);

for (let index = conversation.load().length; ; index++) {
  const id = `m-${index}`;
  conversation.append(
    {
      id,
      data: { role: 'assistant', content: [{ type: 'text', text: `${id} ${padding}` }] },
      metadata: { index },
      createdAt: new Date(),
      source: { type: 'assistant', stepId: `step-${index}` },
    },
    { turnId: `turn-${Math.floor(index / 10)}` },
  );
  // Synchronous write to fd 1: once the parent has read an id, the append before it had returned.
  writeSync(1, `${id}\n`);
}
