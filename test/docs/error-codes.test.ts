import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SANDBOX_ERROR_CODES } from '../../src/sandbox/errors';
import { ROOT, SRC, sourceFiles } from '../helpers/imports';

// docs/output.md's codes table against the source both ways (`http_${status}` as `http_<status>`), with exit codes.
// A server's own code passes through as sent.

function codesInSource() {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const files = sourceFiles(SRC, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts')).filter((file) => !file.startsWith(path.join(SRC, 'sandbox') + path.sep));
  const program = ts.createProgram(files, options);
  const checker = program.getTypeChecker();
  /** Each code, where it is made (file:line), and the exit code when the source fixes it there. */
  const found: Array<{ code: string; at: string; exit?: number }> = [];

  /** The string literals an expression can be: from its type, else from its parts. */
  const literalsOf = (node: ts.Node): string[] => {
    if (ts.isTemplateExpression(node)) return [node.head.text + node.templateSpans.map((span) => `<${span.expression.getText()}>${span.literal.text}`).join('')];
    if (ts.isExpression(node)) {
      const type = checker.getTypeAtLocation(node);
      const members = type.isUnion() ? type.types : [type];
      const literals = members.filter((member) => member.isStringLiteral()).map((member) => (member as ts.StringLiteralType).value);
      if (literals.length > 0 && members.every((member) => member.isStringLiteral() || member.flags & ts.TypeFlags.Undefined)) return literals;
    }
    return node.getChildren().flatMap(literalsOf);
  };

  /** Whether the object's `code` is one a type of petctl's declares (an error's details, an Error body, a row error). */
  const declaredCode = (object: ts.ObjectLiteralExpression): boolean => {
    const contextual = checker.getContextualType(object);
    const property = contextual?.getProperty('code');
    return property?.declarations?.some((declaration) => !ts.isPropertyAssignment(declaration) && !ts.isShorthandPropertyAssignment(declaration)) === true;
  };

  /** `new X(…, { code })` or `super(…, { code })` in class X: the exit code X's class fixes. */
  const exitOf = (object: ts.ObjectLiteralExpression): number | undefined => {
    const call = object.parent;
    if (!(ts.isNewExpression(call) || ts.isCallExpression(call))) return undefined;
    const made = call.expression.kind === ts.SyntaxKind.SuperKeyword ? ts.findAncestor(call, ts.isClassLike) : call;
    const exit = made === undefined ? undefined : checker.getTypeAtLocation(made).getProperty('exitCode');
    const type = exit === undefined ? undefined : checker.getTypeOfSymbolAtLocation(exit, call);
    return type?.isNumberLiteral() ? type.value : undefined;
  };

  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const visit = (node: ts.Node): void => {
      if (ts.isObjectLiteralExpression(node) && declaredCode(node)) {
        for (const property of node.properties) {
          if (property.name?.getText() !== 'code') continue;
          const value = ts.isPropertyAssignment(property) ? property.initializer : ts.isShorthandPropertyAssignment(property) ? property.name : undefined;
          if (value === undefined) continue;
          const { line } = source.getLineAndCharacterOfPosition(property.getStart());
          const at = `${path.relative(ROOT, file)}:${line + 1}`;
          for (const code of literalsOf(value)) found.push({ code, at, exit: exitOf(node) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The rows of the codes table in docs/output.md: the codes in backticks of the first cell, the numbers of the second. */
function documentedCodes() {
  const text = fs.readFileSync(path.join(ROOT, 'docs/output.md'), 'utf8');
  const table = /^\| code \| exit \|.*\n\|[-| ]+\|\n((?:\|.*\n)+)/m.exec(text);
  expect(table, 'docs/output.md has a table headed | code | exit | …').not.toBeNull();
  return table![1]!.split('\n').filter(Boolean).flatMap((row) => {
    const [, codes = '', exits = ''] = row.split('|').map((cell) => cell.trim());
    const numbers = [...exits.matchAll(/\d+/g)].map((match) => Number(match[0]));
    return [...codes.matchAll(/`([^`]+)`/g)].map((match) => ({ code: match[1]!, exits: numbers }));
  });
}

describe('the codes petctl prints', () => {
  const inSource = codesInSource();
  const documented = documentedCodes();

  it('every code in the source is in the table of docs/output.md, with the exit code the source fixes, and no other', () => {
    const missing = inSource.filter((found) => !documented.some((row) => row.code === found.code)).map((found) => `${found.code} (${found.at})`);
    expect(missing, 'codes missing from the table in docs/output.md').toEqual([]);
    const wrongExit = inSource
      .filter((found) => found.exit !== undefined && !documented.some((row) => row.code === found.code && row.exits.includes(found.exit!)))
      .map((found) => `${found.code}: exit ${found.exit} (${found.at})`);
    expect(wrongExit, 'exit codes the table does not name').toEqual([]);
    // So a code the analysis stops finding (made by a literal, a `??` default, a function typed to return
    // literals, a `?:` branch, a template) fails here, as a code of node's (UND_ERR_…) fails above.
    const made = new Set(inSource.map((found) => found.code));
    expect(documented.map((row) => row.code).filter((code) => !made.has(code)), 'codes the source never makes').toEqual([]);
  });

  it("every code of the sandbox's is in docs/sandbox.md's table, with its status", () => {
    const text = fs.readFileSync(path.join(ROOT, 'docs/sandbox.md'), 'utf8');
    for (const [code, status] of Object.entries(SANDBOX_ERROR_CODES)) {
      expect(text, code).toMatch(new RegExp(`^\\| ${status} \\| \`${code}\` \\|`, 'm'));
    }
  });
});
