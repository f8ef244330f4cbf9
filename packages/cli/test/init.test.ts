import { afterAll, describe, expect, test } from 'bun:test';
import { lstat, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupTempDirs, gdn, makeTempDir, repoRoot } from './helpers.ts';

afterAll(cleanupTempDirs);

describe('gdn init and gdn types', () => {
  test('init scaffolds a bundle that validates, runs, and whose types follow its schema', async () => {
    const home = await makeTempDir();
    const created = await gdn(['init', 'my-bot'], { cwd: home });
    expect(created.exitCode).toBe(0);
    expect(created.stdout).toContain('Model: scripted');
    const bot = join(home, 'my-bot');
    const files = ['goondan.yaml', 'tools/greet/index.ts', 'tsconfig.json', '.gitignore', 'README.md', 'package.json'];
    for (const file of [...files, 'goondan-tools.d.ts']) expect(await Bun.file(join(bot, file)).exists()).toBe(true);
    expect(JSON.parse(await readFile(join(bot, 'package.json'), 'utf8')).name).toBe('my-bot');
    expect(await readFile(join(bot, 'goondan-tools.d.ts'), 'utf8')).toContain(
      'export type GreetHelloInput = {\n  /** Who to greet */\n  name: string;\n  /** Shout the greeting */\n  loud?: boolean;\n};',
    );

    expect((await gdn(['validate'], { cwd: bot })).exitCode).toBe(0);
    const run = await gdn(['run', '--input', 'Please greet Ada'], { cwd: bot });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('HELLO, ADA!');

    // A schema change leaves the declarations stale: validate warns, types --check fails, types rewrites them.
    const yamlPath = join(bot, 'goondan.yaml');
    const yaml = await readFile(yamlPath, 'utf8');
    await writeFile(yamlPath, yaml.replace('loud: { type: boolean', 'times: { type: integer'));
    const validated = await gdn(['validate'], { cwd: bot });
    expect(validated.exitCode).toBe(0);
    expect(validated.stderr).toContain('goondan-tools.d.ts is stale');
    expect((await gdn(['types', '--check'], { cwd: bot })).exitCode).toBe(1);
    const typed = await gdn(['types'], { cwd: bot });
    expect(typed.exitCode).toBe(0);
    expect(typed.stdout).toContain('wrote goondan-tools.d.ts');
    expect(await readFile(join(bot, 'goondan-tools.d.ts'), 'utf8')).toContain('times?: number;');
    expect((await gdn(['types', '--check'], { cwd: bot })).exitCode).toBe(0);
    expect((await gdn(['validate'], { cwd: bot })).stderr).toBe('');
  });

  test('types works before the handler exists: declare an export, generate its type, then write the handler', async () => {
    const bot = await makeTempDir();
    expect((await gdn(['init', bot])).exitCode).toBe(0);
    const yamlPath = join(bot, 'goondan.yaml');
    const yaml = await readFile(yamlPath, 'utf8');
    const farewell = `    - name: bye
      description: Says goodbye.
      parameters:
        type: object
        properties:
          name: { type: string }
        required: [name]
---
apiVersion: goondan.ai/v1
kind: Agent`;
    await writeFile(yamlPath, yaml.replace('---\napiVersion: goondan.ai/v1\nkind: Agent', farewell));
    const invalid = await gdn(['validate'], { cwd: bot });
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toContain('E_TOOL_HANDLER_MISSING');
    const typed = await gdn(['types'], { cwd: bot });
    expect(typed.exitCode).toBe(0);
    expect(await readFile(join(bot, 'goondan-tools.d.ts'), 'utf8')).toContain('bye: GreetByeInput;');
  });

  test.each(['hello', 'embed'])("examples/%s's goondan-tools.d.ts matches its schemas", async (example) => {
    const result = await gdn(['types', '--check', '--bundle', join(repoRoot, 'examples', example)]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  test('init refuses a folder that already holds a bundle, and writes nothing', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'goondan.yaml'), '# mine\n');
    const result = await gdn(['init', dir]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('already holds a bundle');
    expect(await readFile(join(dir, 'goondan.yaml'), 'utf8')).toBe('# mine\n');
    expect(await Bun.file(join(dir, 'package.json')).exists()).toBe(false);
  });

  test('init keeps files that exist, such as a package.json', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'package.json'), '{"name":"kept"}\n');
    const result = await gdn(['init', dir]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('package.json (exists, kept)');
    // What the kept file needs for gdn is said (its own dependencies were not written).
    expect(result.stdout).toContain('add "@goondan/cli" and "@goondan/core" to its dependencies');
    expect(await readFile(join(dir, 'package.json'), 'utf8')).toBe('{"name":"kept"}\n');
    // DIR and --bundle naming two folders is a usage error, not one of them silently.
    const both = await gdn(['init', join(dir, 'a'), '--bundle', join(dir, 'b')]);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('give the directory once');
  });

  test('the next-step command quotes a folder name a shell would split, and it runs as printed', async () => {
    const parent = await makeTempDir();
    const result = await gdn(['init', "My Bot's"], { cwd: parent });
    expect(result.exitCode).toBe(0);
    const next = /Next: cd (.+?) && /.exec(result.stdout)?.[1];
    expect(next).toBe("'My Bot'\\''s'");
    const shell = Bun.spawnSync(['sh', '-c', `cd ${next} && pwd`], { cwd: parent });
    expect(shell.stdout.toString().trim()).toBe(join(parent, "My Bot's"));
  });

  test('a folder name starting with "-" is printed so that cd does not take it for an option', async () => {
    const parent = await makeTempDir();
    const result = await gdn(['init', '--', '-bot'], { cwd: parent });
    expect(result.exitCode).toBe(0);
    const next = /Next: cd (.+?) && /.exec(result.stdout)?.[1];
    expect(next).toBe('./-bot');
    const shell = Bun.spawnSync(['sh', '-c', `cd ${next} && pwd`], { cwd: parent });
    expect(shell.stdout.toString().trim()).toBe(join(parent, '-bot'));
  });

  test('init never writes through a symbolic link to a missing file outside the folder', async () => {
    const dir = await makeTempDir();
    const outside = await makeTempDir();
    await symlink(join(outside, 'readme'), join(dir, 'README.md'));
    await symlink(join(outside, 'tsconfig'), join(dir, 'tsconfig.json'));
    const result = await gdn(['init', dir]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('README.md (exists, kept)');
    expect(result.stdout).toContain('tsconfig.json (exists, kept)');
    expect((await lstat(join(dir, 'README.md'))).isSymbolicLink()).toBe(true);
    expect(await lstat(join(outside, 'readme')).catch(() => null)).toBeNull();
    expect(await lstat(join(outside, 'tsconfig')).catch(() => null)).toBeNull();
    // A goondan.yaml that is such a link is a bundle already: refused, nothing written.
    const linked = await makeTempDir();
    await symlink(join(outside, 'bundle'), join(linked, 'goondan.yaml'));
    const refused = await gdn(['init', linked]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('already holds a bundle');
    expect(await lstat(join(outside, 'bundle')).catch(() => null)).toBeNull();
  });

  test("init keeps an existing goondan-tools.d.ts and says when it is not the bundle's types", async () => {
    const dir = await makeTempDir();
    const mine = '// my own declarations\nexport type ToolInputs = {};\n';
    await writeFile(join(dir, 'goondan-tools.d.ts'), mine);
    const result = await gdn(['init', dir]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      "  goondan-tools.d.ts (exists, kept; not this bundle's types: run 'npx gdn types')",
    );
    expect(result.stdout).not.toMatch(/^ {2}goondan-tools\.d\.ts$/m);
    expect(await readFile(join(dir, 'goondan-tools.d.ts'), 'utf8')).toBe(mine);
    // One that is current is kept without a word more.
    const again = await makeTempDir();
    expect((await gdn(['init', again])).exitCode).toBe(0);
    await rm(join(again, 'goondan.yaml'));
    const second = await gdn(['init', again]);
    expect(second.stdout).toContain('  goondan-tools.d.ts (exists, kept)\n');
  });

  test.each([
    ['openai', 'provider: openai', 'OPENAI_API_KEY'],
    ['anthropic', 'provider: anthropic', 'ANTHROPIC_API_KEY'],
    ['google', 'provider: google', 'GOOGLE_GENERATIVE_AI_API_KEY'],
    ['ollama', 'provider: openai-compatible', 'http://localhost:11434/v1'],
  ])('init --model %s declares that provider', async (model, provider, detail) => {
    const dir = await makeTempDir();
    expect((await gdn(['init', dir, '--model', model])).exitCode).toBe(0);
    const yaml = await readFile(join(dir, 'goondan.yaml'), 'utf8');
    expect(yaml).toContain(provider);
    expect(yaml).toContain(detail);
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toContain('## Next steps');
  });

  test.each([
    ['init', 'Usage: gdn init [DIR] [--model scripted|openai|anthropic|google|ollama]'],
    ['types', 'Usage: gdn types [DIR] [--check] [--bundle DIR]'],
  ])('gdn %s --help prints its usage, and gdn --help lists it', async (command, usage) => {
    const help = await gdn([command, '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toStartWith(usage);
    expect((await gdn(['--help'])).stdout).toContain(`\n  ${command} `);
  });

  test('init --model with an unknown provider is a usage error', async () => {
    const dir = await makeTempDir();
    const result = await gdn(['init', dir, '--model', 'gpt']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--model must be one of scripted, openai, anthropic, google, ollama');
  });
});
