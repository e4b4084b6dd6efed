// Prompts live in prompts/*.md; {{name}} placeholders are filled here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../core/paths.js';

const cache = new Map<string, string>();

export function renderPrompt(name: string, vars: Record<string, string>): string {
  let template = cache.get(name);
  if (template === undefined) {
    template = readFileSync(path.join(packageRoot, 'prompts', `${name}.md`), 'utf8');
    cache.set(name, template);
  }
  return template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!(key in vars)) throw new Error(`prompt ${name}: no value for {{${key}}}`);
    return vars[key];
  });
}
