import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GoondanError } from '@goondan/core';

const clientDir = join(import.meta.dir, 'client');

let script: Promise<string> | undefined;

/**
 * The console's script: client/app.ts bundled for the browser by Bun.build the first time it is asked for, then
 * kept (no CDN, no prebuilt file to go stale; the package ships the sources).
 */
export function consoleScript(): Promise<string> {
  script ??= (async () => {
    const built = await Bun.build({ entrypoints: [join(clientDir, 'app.ts')], target: 'browser', minify: true });
    if (!built.success) {
      script = undefined;
      const detail = built.logs.map((log) => log.message).join('; ');
      throw new GoondanError('E_CONSOLE_BUILD', `The console's script could not be built: ${detail}`);
    }
    return await built.outputs[0]!.text();
  })();
  return script;
}

let style: Promise<string> | undefined;

export function consoleStyle(): Promise<string> {
  style ??= Bun.file(join(clientDir, 'console.css')).text();
  return style;
}

/** The error page of `code` from the docs shipped beside the package (a checkout has them), or null. */
export function errorPage(code: string): Promise<string> | null {
  if (!/^E_[A-Z0-9_]+$/.test(code)) return null;
  for (const dir of [
    join(import.meta.dir, '..', '..', '..', '..', 'docs', 'errors'),
    join(import.meta.dir, '..', '..', 'docs', 'errors'),
  ]) {
    const file = join(dir, `${code}.md`);
    if (existsSync(file)) return Bun.file(file).text();
  }
  return null;
}
