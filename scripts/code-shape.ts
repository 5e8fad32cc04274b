/**
 * The code's shape, as ARCHITECTURE.md's limits count it: source files over 250 lines, functions over 80 lines,
 * lines over 160 characters and `as unknown as` casts in src, projections and workers (the browser app's .tsx
 * included). `bun scripts/code-shape.ts` prints them; test/core/code-shape.unit.test.ts holds the limits.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export const shapeLimits = { fileLines: 250, filesOverLimit: 3, functionLines: 80, lineLength: 160 } as const;

const root = join(import.meta.dir, "..");
const scanned = ["src", "projections", "workers"];

export type LongFunction = { file: string; name: string; line: number; lines: number };
export type CodeShape = {
  files: number;
  longFiles: { file: string; lines: number }[];
  longFunctions: LongFunction[];
  longLines: { file: string; line: number; length: number }[];
  casts: { file: string; line: number }[];
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** A function's name as a reader would look it up: its own, its variable's, its property's or its method's. */
function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) return `${parent.expression.getText().slice(0, 40)}(…)`;
  return "(anonymous)";
}

function functionsOf(file: string, source: ts.SourceFile): LongFunction[] {
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function measureCodeShape(): CodeShape {
  const files = scanned.flatMap((dir) => sourceFiles(join(root, dir)));
  const shape: CodeShape = { files: files.length, longFiles: [], longFunctions: [], longLines: [], casts: [] };
  for (const path of files) {
    const file = relative(root, path);
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
    if (count > shapeLimits.fileLines) shape.longFiles.push({ file, lines: count });
    lines.forEach((line, index) => {
      if (line.length > shapeLimits.lineLength) shape.longLines.push({ file, line: index + 1, length: line.length });
      if (line.includes("as unknown as")) shape.casts.push({ file, line: index + 1 });
    });
    const kind = path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.ESNext, true, kind);
    shape.longFunctions.push(...functionsOf(file, source).filter((f) => f.lines > shapeLimits.functionLines));
  }
  shape.longFiles.sort((a, b) => b.lines - a.lines);
  shape.longFunctions.sort((a, b) => b.lines - a.lines);
  return shape;
}

if (import.meta.main) {
  const shape = measureCodeShape();
  console.log(`${shape.files} source files`);
  console.log(`files over ${shapeLimits.fileLines} lines: ${shape.longFiles.length} (at most ${shapeLimits.filesOverLimit})`);
  for (const f of shape.longFiles) console.log(`  ${f.lines}  ${f.file}`);
  console.log(`functions over ${shapeLimits.functionLines} lines: ${shape.longFunctions.length}`);
  for (const f of shape.longFunctions) console.log(`  ${f.lines}  ${f.file}:${f.line} ${f.name}`);
  console.log(`lines over ${shapeLimits.lineLength} characters: ${shape.longLines.length}`);
  if (process.argv.includes("--lines")) for (const l of shape.longLines) console.log(`  ${l.length}  ${l.file}:${l.line}`);
  console.log(`"as unknown as" casts: ${shape.casts.length}`);
  if (process.argv.includes("--casts")) for (const c of shape.casts) console.log(`  ${c.file}:${c.line}`);
}
