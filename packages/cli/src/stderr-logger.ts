import { Console as NodeConsole } from 'node:console';

/** Where tool and extension logs go in the CLI: standard error, so standard output stays the command's result. */
export const stderrLogger = new NodeConsole({ stdout: process.stderr, stderr: process.stderr }) as unknown as Console;
