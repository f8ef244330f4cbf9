function ended(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('error', () => resolve());
    // A callback on end() is the one Bun calls only once everything written before it is out (a pipe may lag).
    stream.end(() => resolve());
  });
}

/**
 * Ends the process with `code` once stdout and stderr are written out. A command's work is done when it returns:
 * a timer or socket an entry module left open must not keep `gdn` alive (docs/decisions.md).
 */
export async function exitWhenDone(code: number): Promise<never> {
  process.exitCode = code;
  await Promise.all([ended(process.stdout), ended(process.stderr)]);
  process.exit(code);
}
