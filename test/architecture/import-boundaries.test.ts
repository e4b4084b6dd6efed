// The rooms of src and which way their doors open (issue 34, part 7). A
// failure names every import that breaks the rule, as file -> file, so the
// fix is to move that import's target, not to loosen the rule.
import { describe, expect, it } from 'vitest';
import { cycles, folderOf, graph, importsOf, readSrc, type Import } from './import-graph.js';

const imports = importsOf(readSrc());
const local = imports.filter((i) => i.local);
const line = (i: Import) => `${i.from} -> ${i.specifier}`;

/**
 * The one folder cycle kept on purpose: chart rendering runs on the backtest's
 * worker threads (charts/render.ts -> backtest/threads/pool.ts), and the worker
 * takes the chart's size and style types (backtest/threads/worker.ts -> charts).
 * docs/decisions/thread-pool-in-backtest.md says why the pool lives there.
 */
const threadPool = (i: Import) => i.from.startsWith('backtest/threads/') && folderOf(i.to) === 'charts';

/**
 * Each folder cycle beyond the pool's, as its shortest circuits through each of
 * its folders ("core -> db -> core"), with the imports that make every step.
 */
function folderCycles(all: Import[]): string[] {
  const between = all.filter((i) => i.local && folderOf(i.from) !== folderOf(i.to) && !threadPool(i));
  const edges = graph(between.map((i) => [folderOf(i.from), folderOf(i.to)]));
  const found = new Set<string>();
  for (const group of cycles(edges)) {
    for (const start of group) {
      // the same circuit found from another of its folders is told once, from its first folder by name
      const loop = shortestCircuit(edges, start, new Set(group)).slice(0, -1);
      const first = loop.indexOf([...loop].sort()[0]);
      const circuit = [...loop.slice(first), ...loop.slice(0, first), loop[first]];
      const steps = circuit.slice(1).map((to, n) => {
        const from = circuit[n];
        const how = between.filter((i) => folderOf(i.from) === from && folderOf(i.to) === to).map(line);
        return `${from} -> ${to} (${how.slice(0, 3).join(', ')}${how.length > 3 ? ` and ${how.length - 3} more` : ''})`;
      });
      found.add(`${circuit.join(' -> ')}: ${steps.join('; ')}`);
    }
  }
  return [...found].sort();
}

/** The shortest path from `start` back to itself within `inside` (breadth first), as the folders it passes. */
function shortestCircuit(edges: Map<string, Set<string>>, start: string, inside: Set<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const at = queue.shift()!;
    for (const to of edges.get(at) ?? []) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const back = [at];
        while (back[0] !== start) back.unshift(cameFrom.get(back[0])!);
        return [...back, start];
      }
      if (!cameFrom.has(to) && to !== start) {
        cameFrom.set(to, at);
        queue.push(to);
      }
    }
  }
  return [start];
}

const PLATFORM_WORDS = /slack|teams|botbuilder|botframework/i;
/** The rooms that may name a platform; bench measures each platform's own path, as the tests do. */
const PLATFORM_ROOMS = (file: string) => ['channels', 'config', 'cli', 'bench'].includes(folderOf(file)) || file === 'core/platform.ts';

describe('import boundaries of src', () => {
  it('reads the imports (a sanity check that the reader sees them all)', () => {
    expect(local.length).toBeGreaterThan(500);
    expect(local).toContainEqual(expect.objectContaining({ from: 'charts/render.ts', to: 'backtest/threads/pool.ts' }));
  });

  it('no folder cycle but the thread pool’s', () => {
    expect(folderCycles(imports)).toEqual([]);
  });

  it('no file cycle', () => {
    // each group of files that import one another around a circle, with the imports between them
    const groups = cycles(graph(local.map((i) => [i.from, i.to])));
    expect(groups.map((g) => local.filter((i) => g.includes(i.from) && g.includes(i.to)).map(line))).toEqual([]);
  });

  it('core imports nothing outside core', () => {
    expect(local.filter((i) => folderOf(i.from) === 'core' && folderOf(i.to) !== 'core').map(line)).toEqual([]);
  });

  it('digest and jobs never import channels', () => {
    expect(local.filter((i) => ['digest', 'jobs'].includes(folderOf(i.from)) && folderOf(i.to) === 'channels').map(line)).toEqual([]);
  });

  it('plan never imports agents', () => {
    expect(local.filter((i) => folderOf(i.from) === 'plan' && folderOf(i.to) === 'agents').map(line)).toEqual([]);
  });

  it('platform names (Slack, Teams) are imported only in channels, config, cli, bench and core/platform.ts', () => {
    expect(imports.filter((i) => PLATFORM_WORDS.test(i.to) && !PLATFORM_ROOMS(i.from)).map(line)).toEqual([]);
  });
});
