import { dlopen, FFIType, ptr } from 'bun:ffi';
import { readFileSync, writeSync } from 'node:fs';

/** The memfd's name; /proc/self/fd/N of the new start links to `/memfd:<name>`, which is how it knows the fd. */
export const MEMFD_NAME = 'goondan-environment';

/** Where glibc and musl keep the C library. */
const libcNames = ['libc.so.6', 'libc.musl-x86_64.so.1', 'libc.musl-aarch64.so.1', 'libc.so'];

function openLibc() {
  const symbols = {
    memfd_create: { args: [FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  } as const;
  let failure: unknown;
  for (const name of libcNames) {
    try {
      return dlopen(name, symbols).symbols;
    } catch (thrown) {
      failure = thrown;
    }
  }
  throw failure;
}

function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`);
}

/** A NULL-terminated array of C strings; `keep` holds the buffers alive until execve. */
function cStringArray(list: string[], keep: Buffer[]): BigUint64Array {
  const pointers = new BigUint64Array(list.length + 1);
  list.forEach((text, index) => {
    const buffer = cString(text);
    keep.push(buffer);
    pointers[index] = BigInt(ptr(buffer));
  });
  return pointers;
}

/**
 * Writes all of `bytes` or throws: a write cut short (a file-size limit, `ulimit -f`) must not hand the new start a
 * truncated environment, so the caller goes on without the re-exec instead.
 */
function writeAll(fd: number, bytes: Buffer): void {
  let written = 0;
  while (written < bytes.length) {
    const count = writeSync(fd, bytes, written, bytes.length - written);
    if (count <= 0) throw new Error(`the environment could not be written whole (${written} of ${bytes.length} bytes)`);
    written += count;
  }
}

/**
 * Replaces this process (same pid, same argv, same stdio) by a fresh start of the same program whose environment
 * block is `blockEnv` plus `fdVariable=N`, N being an anonymous in-memory file (memfd) holding `handedOver` as
 * JSON. Returns only when it cannot (then it throws). Linux only.
 */
export function reexecWithEnvironment(options: {
  blockEnv: Record<string, string>;
  handedOver: Record<string, string>;
  fdVariable: string;
}): never {
  const libc = openLibc();
  // No MFD_CLOEXEC: the file must survive execve; the new program closes it as soon as it has read it.
  const name = cString(MEMFD_NAME);
  const fd = libc.memfd_create(ptr(name), 0);
  if (fd < 0) throw new Error('memfd_create failed');
  writeAll(fd, Buffer.from(JSON.stringify(options.handedOver)));
  // The exact argv this process was started with (Bun's own flags included).
  const argv = readFileSync('/proc/self/cmdline', 'utf8').split('\0').slice(0, -1);
  const environment = Object.entries({ ...options.blockEnv, [options.fdVariable]: String(fd) }).map(
    ([name, value]) => `${name}=${value}`,
  );
  const keep: Buffer[] = [];
  const path = cString('/proc/self/exe');
  const argvArray = cStringArray(argv, keep);
  const environmentArray = cStringArray(environment, keep);
  libc.execve(ptr(path), ptr(argvArray), ptr(environmentArray));
  throw new Error('execve failed');
}
