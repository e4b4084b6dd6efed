// The Teams chart elements of an Adaptive Card against their schema (Teams'
// "charts in Adaptive Cards": Chart.VerticalBar, Chart.VerticalBar.Grouped,
// Chart.Line), which the adaptivecards library does not know. A checked chart
// is then replaced by its fallback, which is what the library (and any host
// without charts) renders and validates.
type Json = Record<string, unknown>;

const COMMON = new Set([
  'type',
  'id',
  'title',
  'colorSet',
  'xAxisTitle',
  'yAxisTitle',
  'fallback',
  'isVisible',
  'height',
  'horizontalAlignment',
  'separator',
  'spacing',
  'targetWidth',
  'grid.area',
  'requires',
  'lang',
]);
const OWN: Record<string, Set<string>> = {
  'Chart.VerticalBar': new Set(['data', 'color', 'showBarValues']),
  'Chart.VerticalBar.Grouped': new Set(['data', 'stacked', 'showBarValues']),
  'Chart.Line': new Set(['data']),
};

const point = (p: Json, where: string): string[] =>
  (typeof p?.x === 'string' || typeof p?.x === 'number') && typeof p?.y === 'number' && Number.isFinite(p.y)
    ? []
    : [`${where}: a point needs an x (text or number) and a finite number y`];

const seriesProblems = (data: unknown, where: string): string[] => {
  if (!Array.isArray(data) || !data.length) return [`${where}.data: an array of series is required`];
  return (data as Json[]).flatMap((s, i) => {
    const at = `${where}.data[${i}]`;
    const values = s.values as Json[] | undefined;
    if (typeof s.legend !== 'string' || !Array.isArray(values) || !values.length) return [`${at}: a series needs a legend and values`];
    return values.flatMap((p, j) => point(p, `${at}.values[${j}]`));
  });
};

export function teamsChartProblems(el: Json, where = el.type as string): string[] {
  const own = OWN[el.type as string];
  if (!own) return [`${where}: not a Teams chart element`];
  const problems = Object.keys(el)
    .filter((k) => !COMMON.has(k) && !own.has(k))
    .map((k) => `${where}: ${k} is not a property of ${String(el.type)}`);
  if (el.title !== undefined && typeof el.title !== 'string') problems.push(`${where}.title: not text`);
  if (el.type === 'Chart.VerticalBar') {
    if (!Array.isArray(el.data) || !el.data.length) problems.push(`${where}.data: an array of points is required`);
    else (el.data as Json[]).forEach((p, i) => problems.push(...point(p, `${where}.data[${i}]`)));
  } else problems.push(...seriesProblems(el.data, where));
  if (el.fallback !== undefined && el.fallback !== 'drop' && typeof (el.fallback as Json)?.type !== 'string')
    problems.push(`${where}.fallback: an element or "drop"`);
  return problems;
}

/** The card with every Teams chart checked and replaced by its fallback (or dropped): what other hosts render. */
export function withChartFallbacks(card: Json, problems: string[]): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node))
      return node.flatMap((n) => {
        const el = n as Json;
        if (el && typeof el.type === 'string' && el.type.startsWith('Chart.')) {
          problems.push(...teamsChartProblems(el));
          return el.fallback && el.fallback !== 'drop' ? [walk(el.fallback)] : [];
        }
        return [walk(n)];
      });
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  return walk(card) as Json;
}
