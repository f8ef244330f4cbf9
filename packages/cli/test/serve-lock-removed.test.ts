// The serve lock's file deleted or replaced under a running `gdn serve` (`rm -rf .goondan`): the lock is taken again
// at its path, so a second gdn serve of the bundle is still refused; when another process holds the new file, the
// first gdn serve stops (exit 1) rather than serve the bundle twice.
import { afterAll, afterEach, expect, test } from 'bun:test';
import { mkdirSync, renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireInstanceWriterLock } from '@goondan/core';
import { agentBundle, cleanupTempDirs, cliEnv, gdn, scriptedModel, startGdn } from './helpers.ts';

afterAll(cleanupTempDirs);

const started: ReturnType<typeof startGdn>[] = [];
afterEach(() => {
  for (const server of started.splice(0)) server.proc.kill('SIGKILL');
});

async function serving(bundle: string) {
  const server = startGdn(['serve', '--bundle', bundle, '--port', '0'], { env: cliEnv() });
  started.push(server);
  await server.waitForStderr('OpenAI-compatible base URL: ', 60_000);
  return server;
}

test('.goondan deleted under gdn serve: the lock is taken again and a second gdn serve is still refused', async () => {
  const bundle = await agentBundle(scriptedModel([{ text: 'Hello.' }]));
  const server = await serving(bundle);
  await rm(join(bundle, '.goondan'), { recursive: true, force: true });
  await server.waitForStderr('the lock is taken again', 30_000);

  const second = await gdn(['serve', '--bundle', bundle, '--port', '0']);
  expect(second.exitCode).not.toBe(0);
  expect(second.stderr).toContain('E_SERVE_BUNDLE_BUSY');
  expect(second.stderr).toContain(`pid ${server.proc.pid}`);
  // The first one still serves.
  expect(server.proc.exitCode).toBeNull();
});

test('the lock file replaced by one another process holds: gdn serve stops, exit 1, saying why', async () => {
  const bundle = await agentBundle(scriptedModel([{ text: 'Hello.' }]));
  const server = await serving(bundle);
  // Another process's lock, made beside it, then moved into place (holder file first): the path now names a lock
  // this gdn serve cannot take.
  const serveDir = join(bundle, '.goondan', 'serve');
  const otherDir = join(bundle, '.goondan', 'serve-other');
  mkdirSync(otherDir, { recursive: true });
  const other = acquireInstanceWriterLock({ dir: otherDir, instance: 'the test', holder: 'the test' });
  try {
    renameSync(join(otherDir, 'writer.json'), join(serveDir, 'writer.json'));
    renameSync(join(otherDir, 'writer.lock'), join(serveDir, 'writer.lock'));
    const result = await server.finish();
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('cannot be taken again');
    expect(result.stderr).toContain(`pid ${process.pid} (the test)`);
    expect(result.stderr).toContain('[serve] stopped');
  } finally {
    other.release();
  }
});
