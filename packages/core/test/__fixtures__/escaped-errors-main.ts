/**
 * Run by escaped-tool-errors.test.ts as its own process (an escaped error is process-wide): calls tools whose
 * errors escape every await (or that call process.exit), with guardProcessErrors installed, and prints one JSON line per result.
 */
import { guardProcessErrors } from '../../src/tools/guard-process-errors.ts';
import { registryWith, testScope } from '../../src/tools/test-support.ts';
import { ToolCatalog } from '../../src/tools/tool-catalog.ts';
import { ToolExecutor } from '../../src/tools/tool-executor.ts';

let onLog: (line: string) => void = () => {};
guardProcessErrors({
  log: (line) => {
    console.error(line);
    onLog(line);
  },
});
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
  {
    item: { name: 'escape__exit' },
    handler: () => process.exit(0),
  },
  {
    item: { name: 'escape__late' },
    handler: () => {
      setTimeout(() => {
        throw new Error('thrown after the result');
      }, 1);
      return 'done';
    },
  },
]);
const executor = new ToolExecutor({ registry });
const catalog = new ToolCatalog(registry.list().map((tool) => tool.item));
for (const name of ['escape__timer', 'escape__rejection', 'escape__exit']) {
  const result = await executor.execute({ id: name, name, args: {} }, { catalog, scope: testScope() });
  console.log(JSON.stringify({ name, result }));
}
const logged = new Promise<string>((resolve) => {
  onLog = (line) => {
    if (line.includes('after it finished')) resolve(line);
  };
});
const late = await executor.execute({ id: 'late', name: 'escape__late', args: {} }, { catalog, scope: testScope() });
console.log(JSON.stringify({ name: 'escape__late', result: late, logged: await logged }));
console.log(JSON.stringify({ alive: true }));
