import { readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isSecretVariable } from '@goondan/base';
import type { Subprocess } from 'bun';

/** Absolute path of the CLI entry, run as a real process under the current Bun. */
export const mainTs = resolve(import.meta.dir, '..', 'src', 'main.ts');
/** The `gdn` command as npm installs it (node_modules/.bin/gdn links here). */
export const launcher = resolve(import.meta.dir, '..', 'bin', 'gdn');
export const repoRoot = resolve(import.meta.dir, '..', '..', '..');
export const fixturesDir = resolve(import.meta.dir, '__fixtures__');

/** Marker in __fixtures__/agent/goondan.yaml: everything below it is the Model, which tests may replace. */
const modelMarker = '# MODEL';

/**
 * The environment every gdn process gets: no colours, and nothing the scrubber counts as a secret (provider keys,
 * npm's own variables under `npm test`). Without such variables gdn does not restart itself to seal its environment
 * (docs/security.md), which keeps each of the suite's many gdn processes quicker; the tests of sealing plant their
 * own keys.
 */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /API_KEY/.test(key) || isSecretVariable(key, value)) continue;
    env[key] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

export interface GdnResult {
  exitCode: number | null;
  signalCode: Subprocess['signalCode'];
  stdout: string;
  stderr: string;
}

/** Runs `gdn ARGS` to completion and collects its output. */
export async function gdn(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<GdnResult> {
  const proc = Bun.spawn([process.execPath, mainTs, ...args], {
    cwd: options.cwd ?? tmpdir(),
    env: options.env ?? cliEnv(),
    stdin: options.stdin === undefined ? 'ignore' : new TextEncoder().encode(options.stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { exitCode: proc.exitCode, signalCode: proc.signalCode, stdout, stderr };
}

/** Far above any real run of these commands; a process still alive then is hung, which is what these tests catch. */
export const hangDeadlineMs = 45_000;

/** `gdn ARGS`, killed if it has not exited by the deadline; `hung` says whether that happened. */
export async function gdnWithin(
  args: string[],
  env: Record<string, string> = {},
): Promise<GdnResult & { hung: boolean }> {
  const proc = Bun.spawn([process.execPath, mainTs, ...args], {
    env: cliEnv(env),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    proc.kill('SIGKILL');
  }, hangDeadlineMs);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(timer);
  return { exitCode: proc.exitCode, signalCode: proc.signalCode, stdout, stderr, hung };
}

/** `gdn ARGS` whose stdout is JSON; fails with the process output when it is not. */
export async function gdnJson<T = Record<string, unknown>>(
  args: string[],
  options: Parameters<typeof gdn>[1] = {},
): Promise<{ result: GdnResult; json: T }> {
  const result = await gdn(args, options);
  try {
    return { result, json: JSON.parse(result.stdout) as T };
  } catch {
    throw new Error(
      `stdout is not JSON (exit ${result.exitCode}):\n${result.stdout}\n--- stderr ---\n${result.stderr}`,
    );
  }
}

/** A started gdn process whose stderr is read as it arrives, for tests that signal it mid-turn. */
export function startGdn(args: string[], options: { env?: Record<string, string> } = {}) {
  const proc = Bun.spawn([process.execPath, mainTs, ...args], {
    cwd: tmpdir(),
    env: options.env ?? cliEnv(),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let stderr = '';
  const stdoutText = new Response(proc.stdout).text();
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  return {
    proc,
    get stderr() {
      return stderr;
    },
    /** Resolves once stderr contains `text`; rejects after `timeoutMs` or when the process ends first. */
    async waitForStderr(text: string, timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!stderr.includes(text)) {
        if (proc.exitCode !== null || proc.signalCode !== null)
          throw new Error(`gdn exited (${proc.exitCode ?? proc.signalCode}) before printing '${text}':\n${stderr}`);
        if (Date.now() > deadline) throw new Error(`no '${text}' on stderr within ${timeoutMs} ms:\n${stderr}`);
        await Bun.sleep(10);
      }
    },
    async finish(): Promise<GdnResult> {
      await proc.exited;
      const stdout = await stdoutText;
      await stderrDone;
      return { exitCode: proc.exitCode, signalCode: proc.signalCode, stdout, stderr };
    },
  };
}

const tempDirs = new Set<string>();

/** A fresh directory under the system temp dir (realpath'd), removed by `cleanupTempDirs`. */
export async function makeTempDir(prefix = 'gdn-cli-test-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  tempDirs.add(dir);
  return dir;
}

export async function cleanupTempDirs(): Promise<void> {
  const dirs = [...tempDirs];
  tempDirs.clear();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Copies a fixture bundle to a temp dir (so `.goondan/` state stays out of the repo); returns its path. */
export async function copyFixture(name: string): Promise<string> {
  const dir = await makeTempDir(`gdn-${name}-`);
  await cp(join(fixturesDir, name), dir, { recursive: true });
  return dir;
}

/** Replaces the Model of a copied `agent` bundle with the given YAML document. */
export async function setModel(bundleDir: string, modelYaml: string): Promise<void> {
  const file = join(bundleDir, 'goondan.yaml');
  const text = await readFile(file, 'utf8');
  const at = text.indexOf(modelMarker);
  if (at < 0) throw new Error(`no '${modelMarker}' marker in ${file}`);
  await writeFile(file, `${text.slice(0, at)}${modelMarker}\n${modelYaml}`);
}

/** Edits the copied bundle's goondan.yaml text. */
export async function editBundle(bundleDir: string, edit: (text: string) => string): Promise<void> {
  const file = join(bundleDir, 'goondan.yaml');
  await writeFile(file, edit(await readFile(file, 'utf8')));
}

/**
 * A scripted Model document (`main`) playing the given steps. The script is JSON with DEL and the C1 codes written
 * as escapes (YAML refuses them raw), so a step may hold any character.
 */
export function scriptedModel(steps: object[]): string {
  const script = JSON.stringify(steps).replace(
    /[\u007f-\u009f]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return [
    'apiVersion: goondan.ai/v1',
    'kind: Model',
    'metadata:',
    '  name: main',
    'spec:',
    '  provider: scripted',
    '  model: fixture',
    `  script: ${script}`,
    '',
  ].join('\n');
}

/**
 * An openai-compatible Model document (`main`) talking to the local test server; `settings` (spec lines) replace
 * the fixed API key.
 */
export function serverModel(baseURL: string, options: { model?: string; settings?: string[] } = {}): string {
  const { model = 'test-model', settings = ['apiKey: { value: test-key }'] } = options;
  return [
    'apiVersion: goondan.ai/v1',
    'kind: Model',
    'metadata:',
    '  name: main',
    'spec:',
    '  provider: openai-compatible',
    `  model: ${model}`,
    `  baseURL: ${baseURL}`,
    ...settings.map((line) => `  ${line}`),
    '',
  ].join('\n');
}

/** A copy of the `agent` fixture whose Model is the given YAML. */
/** Waits until `predicate` holds (checked every 20 ms), failing with `what` after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

export async function agentBundle(modelYaml?: string): Promise<string> {
  const dir = await copyFixture('agent');
  if (modelYaml !== undefined) await setModel(dir, modelYaml);
  return dir;
}

/** The shape of an OpenAI Chat Completions request body, as far as the tests read it. */
export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: ChatMessage[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | null | { type: string; text?: string }[];
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The text of a message's content, whether a string or parts. */
export function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.map((part) => part.text ?? '').join('');
  return '';
}

/** Chat completion request bodies the test server recorded, in order. */
export function chatBodies(requests: { path: string; method: string; body: unknown }[]): ChatRequestBody[] {
  return requests
    .filter((request) => request.method === 'POST' && request.path === '/v1/chat/completions')
    .map((request) => request.body as ChatRequestBody);
}

export interface RawAnswer {
  /** 0 when the connection closed without an answer. */
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One request written as is over a socket (any method, any header), read until the server closes; with
 * `keepAlive`, the request does not ask for the close (a server that keeps the connection open never answers here);
 * `host` is the Host header to send (default the URL's), one fetch() would not.
 */
export async function rawRequest(
  url: string,
  head: string,
  options: { keepAlive?: boolean; host?: string } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  let text = '';
  const { promise: closed, resolve } = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_socket, chunk) {
        text += new TextDecoder().decode(chunk);
      },
      close: () => resolve(),
      error: () => resolve(),
    },
  });
  socket.write(
    `${head}\r\nHost: ${options.host ?? `${hostname}:${port}`}\r\n${options.keepAlive ? '' : 'Connection: close\r\n'}\r\n`,
  );
  await closed;
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, split < 0 ? text.length : split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body: split < 0 ? '' : text.slice(split + 4),
  };
}

/** Starts `gdn auth login APP --bundle DIR` and reads its output until the authorization link is printed. */
export async function startAuthLogin(dir: string, env: Record<string, string>, app = 'github') {
  const login = Bun.spawn([process.execPath, mainTs, 'auth', 'login', app, '--bundle', dir], {
    env,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const reader = login.stdout.getReader();
  let stdout = '';
  while (!/^http\S+$/m.test(stdout)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`login ended early: ${stdout}${await new Response(login.stderr).text()}`);
    stdout += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { login, link: /^(http\S+)$/m.exec(stdout)![1]! };
}

/** Every file under `dir`, as text (read as bytes: SQLite files too), to search for what must not be there. */
export function everythingWritten(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'))
    .join('\n');
}
