// Replies as real models send them: every one yields the object a person sees in it.
import { describe, expect, it } from 'vitest';
import { extractJson } from '../../src/llm/extract-json.js';

const SQL = "SELECT count(*) AS incidents FROM crimes WHERE primary_type = 'THEFT' AND year = 2019";

describe('extractJson', () => {
  it.each([
    ['bare JSON', `{"sql": "${SQL}"}`],
    ['a json fence', '```json\n{"sql": "' + SQL + '"}\n```'],
    ['a fence without a language', '```\n{"sql": "' + SQL + '"}\n```'],
    ['prose before and after', `Sure! Here is the query:\n{"sql": "${SQL}"}\nLet me know if you need anything else.`],
    ['a fenced SQL string inside otherwise valid JSON', '{"sql": "```sql\\n' + SQL + '\\n```"}'],
    ['a json fence around JSON whose string holds a fence', '```json\n{"sql": "```sql ' + SQL + ' ```"}\n```'],
    ['a trailing comma', `{"sql": "${SQL}",}`],
    ['single quotes, Python style', `{'sql': "${SQL.replace(/'/g, "\\'")}"}`.replace(/"/g, "'")],
    ['braces inside the string', '{"sql": "SELECT \'{a}\' AS x, count(*) FROM crimes"}'],
    ['two objects, the first is the answer', `{"sql": "${SQL}"} and as a fallback {"sql": "SELECT 1"}`],
    ['a reasoning preamble with braces in it', `I considered {year} and {type} as slots.\n\n{"sql": "${SQL}"}`],
    [
      'nested plan with a trailing comma in an array',
      '{"plan": {"measure": {"kind": "count"}, "filters": {"types": ["THEFT",]}, "groupBy": []}}',
    ],
  ])('%s', (_, reply) => {
    const value = extractJson(reply) as Record<string, unknown>;
    if ('plan' in value) expect(value.plan).toEqual({ measure: { kind: 'count' }, filters: { types: ['THEFT'] }, groupBy: [] });
    else
      expect(
        String(value.sql)
          .replace(/```(sql)?|\\n/g, '')
          .trim(),
      ).toMatch(
        /^SELECT (count\(\*\) AS incidents FROM crimes WHERE primary_type = 'THEFT' AND year = 2019|'\{a\}' AS x, count\(\*\) FROM crimes)$/,
      );
  });

  it('says so when there is no object at all', () => {
    expect(() => extractJson('I cannot help with that.')).toThrow('no JSON object in the reply');
    expect(() => extractJson('{"sql": "unterminated')).toThrow('no JSON object in the reply');
  });
});
