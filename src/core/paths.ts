// Files that ship with the package (fixtures, migrations) are found relative to
// the package root, whether the code runs from src/ (tests) or dist/ (built).
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
/** src/core or dist/core -> the package root. */
export const packageRoot = path.resolve(here, '..', '..');

export const fixturePath = (...parts: string[]) => path.join(packageRoot, 'fixtures', ...parts);
export const migrationsDir = path.join(packageRoot, 'src', 'db', 'migrations');
