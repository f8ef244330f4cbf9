// Child process of the writer-lock tests: takes the writer lock of an instance directory, prints "locked", and
// holds it until killed. Usage: bun hold-writer-lock.ts <instance-dir>
import { writeSync } from 'node:fs';
import { acquireInstanceWriterLock } from '../instance-writer-lock.ts';

const [dir] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: hold-writer-lock.ts <instance-dir>');
const lock = acquireInstanceWriterLock({ dir, instance: 'assistant/default', holder: 'lock fixture' });
writeSync(1, 'locked\n');
// Referenced from a timer: a lock that nothing references could be collected, and closing it frees the lock.
setInterval(() => lock.holder, 60_000);
