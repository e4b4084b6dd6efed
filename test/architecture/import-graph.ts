// The imports between the files of src, read with the TypeScript compiler's
// own pre-processor (it sees `import`, `export … from`, `import type` and
// `import()` alike, and never mistakes a string in the code for one).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Import {
  /** the importing file, relative to src ("plan/compile.ts") */
  from: string;
  /** the imported file relative to src, or the package name ("pg", "node:fs") */
  to: string;
  /** the specifier as written */
  specifier: string;
  /** whether `to` is a file of src */
  local: boolean;
}

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every import of every .ts file under src. */
export function importsOf(files: { path: string; text: string }[]): Import[] {
  return files.flatMap(({ path: file, text }) =>
    ts.preProcessFile(text, true, true).importedFiles.map(({ fileName: specifier }) => {
      if (!specifier.startsWith('.')) return { from: file, to: specifier, specifier, local: false };
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
      return { from: file, to: resolved, specifier, local: true };
    }),
  );
}

export function readSrc(): { path: string; text: string }[] {
  return sourceFiles(SRC).map((full) => ({
    path: path.relative(SRC, full).split(path.sep).join('/'),
    text: readFileSync(full, 'utf8'),
  }));
}

/** The top folder of a file of src ("plan/read/follow-up.ts" -> "plan"); files directly in src are their own room. */
export function folderOf(file: string): string {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : file;
}

/**
 * The strongly connected groups of a directed graph (Tarjan), each of more
 * than one node: every group is a cycle, and every cycle lies in one group.
 */
export function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups;
}

export function graph(pairs: [string, string][]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const [from, to] of pairs) {
    if (!edges.has(from)) edges.set(from, new Set());
    if (!edges.has(to)) edges.set(to, new Set());
    edges.get(from)!.add(to);
  }
  return edges;
}
