// Temporary files for tests, removed with their folder at the end of the file's run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(): { dir: string; file(name: string, content?: string): string; remove(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'datadesk-test-'));
  return {
    dir,
    file(name, content) {
      const p = path.join(dir, name);
      if (content !== undefined) writeFileSync(p, content);
      return p;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Parses a small CSV we wrote ourselves (quotes, commas) for assertions. */
export function parseSimpleCsv(text: string): string[][] {
  const rows: string[][] = [];
  let field = '';
  let row: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') (row.push(field), (field = ''));
    else if (ch === '\n') (row.push(field), rows.push(row), (row = []), (field = ''));
    else if (ch !== '\r') field += ch;
  }
  if (field || row.length) (row.push(field), rows.push(row));
  return rows;
}
