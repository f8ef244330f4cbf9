// Writes docs/api.md, the API reference of the packages' public entry points, from their TypeScript sources:
// every export of each curated barrel with its kind, signature and doc comment. `bun scripts/api-reference.ts`
// rewrites the page; `--check` exits 1 when the page differs from the code.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const repoRoot = join(import.meta.dir, '..');
export const apiPage = join(repoRoot, 'docs', 'api.md');

const entries = [
  { module: '@goondan/core', file: 'packages/core/src/index.ts' },
  { module: '@goondan/core/testing', file: 'packages/core/src/testing.ts' },
  { module: '@goondan/base', file: 'packages/base/src/index.ts' },
];

const typeFormat =
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.WriteArrowStyleSignature;

function docOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  return text.replace(/\s*\n\s*/g, ' ');
}

function firstSentence(text: string): string {
  const match = /^(.*?[.!?])(\s|$)/.exec(text);
  return match ? match[1]! : text;
}

function kindOf(declaration: ts.Declaration): string {
  if (ts.isFunctionDeclaration(declaration)) return 'function';
  if (ts.isClassDeclaration(declaration)) return 'class';
  if (ts.isInterfaceDeclaration(declaration)) return 'interface';
  if (ts.isTypeAliasDeclaration(declaration)) return 'type';
  if (ts.isVariableDeclaration(declaration)) return 'const';
  if (ts.isEnumDeclaration(declaration)) return 'enum';
  return 'export';
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

function members(symbol: ts.Symbol, checker: ts.TypeChecker, declaration: ts.Declaration): string[] {
  const lines: string[] = [];
  const isClass = ts.isClassDeclaration(declaration);
  const statics = isClass ? [...(symbol.exports?.values() ?? [])].filter((s) => s.name !== 'prototype') : [];
  for (const member of [...(symbol.members?.values() ?? []), ...statics]) {
    const memberDeclaration = member.valueDeclaration ?? member.declarations?.[0];
    if (!memberDeclaration) continue;
    const modifiers = ts.getCombinedModifierFlags(memberDeclaration);
    if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
    if (member.name.startsWith('#') || (member.name.startsWith('__') && member.name !== '__constructor')) continue;
    const type = checker.getTypeOfSymbolAtLocation(member, memberDeclaration);
    let signature: string;
    if (member.name === '__constructor') {
      const construct =
        type.getConstructSignatures()[0] ??
        checker.getSignatureFromDeclaration(memberDeclaration as ts.SignatureDeclaration);
      signature = `new ${symbol.name}${construct ? checker.signatureToString(construct, undefined, typeFormat) : '()'}`;
    } else if (ts.isMethodDeclaration(memberDeclaration) || ts.isMethodSignature(memberDeclaration)) {
      // An optional method's type is `((...) => R) | undefined`: its signatures are those of the function part.
      const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
      const signatures = checker.getNonNullableType(type).getCallSignatures();
      signature = signatures
        .map((s) => `${member.name}${optional}${checker.signatureToString(s, undefined, typeFormat)}`)
        .join('; ');
    } else if (ts.isGetAccessorDeclaration(memberDeclaration)) {
      signature = `get ${member.name}: ${checker.typeToString(type, undefined, typeFormat)}`;
    } else {
      const optional = member.flags & ts.SymbolFlags.Optional ? '?' : '';
      signature = `${member.name}${optional}: ${checker.typeToString(type, undefined, typeFormat)}`;
    }
    if (modifiers & ts.ModifierFlags.Static) signature = `static ${signature}`;
    const doc = firstSentence(docOf(member, checker));
    lines.push(`- \`${oneLine(signature)}\`${doc ? ` — ${doc}` : ''}`);
  }
  return lines;
}

function describeExport(
  exported: ts.Symbol,
  checker: ts.TypeChecker,
): { heading: string; body: string[]; source: string } | null {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if (!declaration) return null;
  const source = relative(repoRoot, declaration.getSourceFile().fileName);
  const kind = kindOf(declaration);
  const body: string[] = [];
  const doc = docOf(symbol, checker);
  if (ts.isFunctionDeclaration(declaration)) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    for (const signature of type.getCallSignatures()) {
      body.push(
        `\`\`\`ts\nfunction ${exported.name}${checker.signatureToString(signature, undefined, typeFormat)}\n\`\`\``,
      );
    }
  } else if (ts.isVariableDeclaration(declaration)) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration);
    let text = checker.typeToString(type, undefined, typeFormat);
    const properties = type.getProperties();
    // A big table (errorCodes) is summed up by its keys; its values are on their own pages.
    if (text.length > 300 && properties.length > 0) text = `{ ${properties.map((p) => `${p.name}: …`).join('; ')} }`;
    body.push(`\`\`\`ts\nconst ${exported.name}: ${text}\n\`\`\``);
  } else if (ts.isTypeAliasDeclaration(declaration)) {
    body.push(`\`\`\`ts\n${declaration.getText().replace(/^export\s+/, '')}\n\`\`\``);
  }
  if (doc) body.unshift(doc, '');
  if (ts.isClassDeclaration(declaration) || ts.isInterfaceDeclaration(declaration)) {
    body.push(...members(symbol, checker, declaration));
  }
  return { heading: `### \`${exported.name}\` (${kind})`, body, source };
}

/** The text of docs/api.md, from the code as it is now. */
export function renderApiReference(): string {
  const program = ts.createProgram(
    entries.map((entry) => join(repoRoot, entry.file)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Preserve,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      resolveJsonModule: true,
      types: ['bun'],
    },
  );
  const checker = program.getTypeChecker();
  const out: string[] = [
    '# API reference',
    '',
    'Generated from the sources by `npx bun scripts/api-reference.ts` (run it after changing an export; `--check`',
    'says whether this page is current); do not edit. Every export of each entry point, with its signature and doc',
    'comment. The guide to using them, and which of them are stable, is [embedding Goondan](embedding.md).',
    '',
  ];
  for (const entry of entries) {
    const sourceFile = program.getSourceFile(join(repoRoot, entry.file))!;
    const moduleSymbol = checker.getSymbolAtLocation(sourceFile)!;
    const exports = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name));
    out.push(`## \`${entry.module}\``, '', `${exports.length} exports, from \`${entry.file}\`.`, '');
    const byFolder = new Map<string, string[]>();
    for (const exported of exports) {
      const described = describeExport(exported, checker);
      if (!described) continue;
      const folder = dirname(described.source).split('/').slice(3).join('/') || 'types';
      const section = byFolder.get(folder) ?? [];
      section.push(
        described.heading,
        '',
        ...described.body.flatMap((line) => [line]),
        '',
        `Source: \`${described.source}\``,
        '',
      );
      byFolder.set(folder, section);
    }
    for (const folder of [...byFolder.keys()].sort()) {
      out.push(`<details><summary><b>${folder}</b></summary>`, '', ...byFolder.get(folder)!, '</details>', '');
    }
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

if (import.meta.main) {
  const text = renderApiReference();
  if (process.argv.includes('--check')) {
    const current = await readFile(apiPage, 'utf8').catch(() => '');
    if (current !== text) {
      console.error('docs/api.md is out of date: run `npx bun scripts/api-reference.ts`');
      process.exit(1);
    }
    console.log('docs/api.md is up to date');
  } else {
    await writeFile(apiPage, text);
    console.log(`wrote ${relative(process.cwd(), apiPage)}`);
  }
}
