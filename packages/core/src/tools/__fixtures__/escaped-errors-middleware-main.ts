/**
 * Run by tool-executor-hostile.test.ts as its own process (an escaped error is process-wide): tools whose errors
 * escape every await (or that call process.exit), under toolCall middleware, with guardProcessErrors installed. One
 * layer passes through, the other waits for the loop to turn before next(), so the handler starts once the chain is
 * bounded. Prints one JSON line per result, then how many audit entries each call had.
 */
import type { AuditEntry } from '../../permissions/permission-types.ts';
import type { ToolCallMiddleware } from '../../types.ts';
import { guardProcessErrors } from '../guard-process-errors.ts';
import { registryWith, testScope } from '../test-support.ts';
import { ToolCatalog } from '../tool-catalog.ts';
import { ToolExecutor } from '../tool-executor.ts';

guardProcessErrors({ log: (line) => console.error(line) });
const never = () => new Promise<never>(() => {});
const registry = registryWith([
  {
    item: { name: 'escape__timer' },
    handler: async () => {
      setTimeout(() => {
        throw new Error('thrown in a timer');
      }, 1);
      return never();
    },
  },
  {
    item: { name: 'escape__rejection' },
    handler: async () => {
      void Promise.reject(new Error('rejected and not awaited'));
      return never();
    },
  },
  { item: { name: 'escape__exit' }, handler: () => process.exit(0) },
]);
const later: ToolCallMiddleware = async (ctx) => {
  await new Promise((resolve) => setImmediate(resolve));
  return ctx.next();
};
const executor = new ToolExecutor({ registry, middlewares: [async (ctx) => ctx.next(), later] });
const catalog = new ToolCatalog(registry.list().map((tool) => tool.item));
const audited = new Map<string, number>();
const scope = {
  ...testScope(),
  audit: (entry: AuditEntry) => audited.set(entry.toolCallId, (audited.get(entry.toolCallId) ?? 0) + 1),
};
for (const name of ['escape__timer', 'escape__rejection', 'escape__exit']) {
  const result = await executor.execute({ id: name, name, args: {} }, { catalog, scope });
  console.log(JSON.stringify({ name, result }));
}
console.log(JSON.stringify({ audited: Object.fromEntries(audited), alive: true }));
