// The JSON object in a model's reply, as real models send it: bare, in a
// ```json fence, with prose before and after, with a fenced SQL string inside
// (```sql … ``` within the "sql" value, which a fence-first regex cut in two),
// with trailing commas, or in single quotes. Objects are found by scanning
// with string and escape awareness, so braces and backticks inside strings do
// not confuse it; the first object that parses (leniently if need be) wins.

/** Start and end (exclusive) of each balanced top-level {...} in the text, strings respected. */
function objectSpans(text: string, quote: '"' | "'"): [number, number][] {
  const spans: [number, number][] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === quote) inString = false;
      continue;
    }
    if (ch === quote && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push([start, i + 1]);
    }
  }
  return spans;
}

/** Removes commas before a closing bracket, outside strings. */
function dropTrailingCommas(json: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (inString) {
      out += ch;
      if (ch === '\\') out += json[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (ch === ',' && /^\s*[}\]]/.test(json.slice(i + 1))) continue;
    out += ch;
  }
  return out;
}

/** {'sql': 'SELECT …'} -> {"sql": "SELECT …"}: single-quoted strings become JSON strings. */
function singleToDouble(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch !== "'") {
      out += ch;
      continue;
    }
    let value = '';
    for (i++; i < text.length && text[i] !== "'"; i++) value += text[i] === '\\' ? text[++i] : text[i];
    out += JSON.stringify(value);
  }
  return out;
}

function parseLenient(candidate: string): unknown {
  for (const attempt of [candidate, dropTrailingCommas(candidate)]) {
    try {
      return JSON.parse(attempt);
    } catch {
      // next
    }
  }
  return undefined;
}

export function extractJson(text: string): unknown {
  const trimmed = text.trim();
  const whole = parseLenient(trimmed);
  if (whole !== undefined && typeof whole === 'object') return whole;
  for (const [start, end] of objectSpans(trimmed, '"')) {
    const parsed = parseLenient(trimmed.slice(start, end));
    if (parsed !== undefined) return parsed;
  }
  // a reply in single quotes, Python style
  for (const [start, end] of objectSpans(trimmed, "'")) {
    const parsed = parseLenient(singleToDouble(trimmed.slice(start, end)));
    if (parsed !== undefined) return parsed;
  }
  throw new SyntaxError('no JSON object in the reply');
}
