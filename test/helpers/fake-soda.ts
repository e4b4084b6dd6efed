// A local stand-in for the portal's SODA API over real HTTP. It answers the
// queries our sync sends ($where on (updated_on, id), $order=updated_on,id,
// $limit), records each request, and can be told to fail the next requests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSoda {
  url: string;
  records: Record<string, unknown>[];
  requests: URLSearchParams[];
  /** statuses to answer with before serving normally again, e.g. [429, 503] */
  failNext: { status: number; retryAfter?: string }[];
  close(): Promise<void>;
}

const WHERE = /^updated_on > '([^']+)' OR \(updated_on = '([^']+)' AND id > (\d+)\)$/;

export async function startFakeSoda(records: Record<string, unknown>[]): Promise<FakeSoda> {
  const fake: FakeSoda = { url: '', records, requests: [], failNext: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const params = new URL(req.url ?? '/', 'http://x').searchParams;
    fake.requests.push(params);
    const failure = fake.failNext.shift();
    if (failure) {
      res.writeHead(failure.status, failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
      res.end(JSON.stringify({ error: true, message: 'scripted failure' }));
      return;
    }
    if (params.get('$order') !== 'updated_on,id') {
      res.writeHead(400);
      res.end(JSON.stringify({ message: 'this fake only serves $order=updated_on,id' }));
      return;
    }
    let rows = [...fake.records].sort((a, b) => String(a.updated_on).localeCompare(String(b.updated_on)) || Number(a.id) - Number(b.id));
    const where = params.get('$where');
    if (where) {
      const m = WHERE.exec(where);
      if (!m) {
        res.writeHead(400);
        res.end(JSON.stringify({ message: `unsupported $where: ${where}` }));
        return;
      }
      const [, after, at, id] = m;
      rows = rows.filter((r) => String(r.updated_on) > after || (String(r.updated_on) === at && Number(r.id) > Number(id)));
    }
    const limit = Number(params.get('$limit') ?? 1000);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(rows.slice(0, limit)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/resource/ijzp-q8t2.json`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}

/** A SODA record as the API sends it: strings for numbers, GeoJSON location. */
export function sodaRecord(id: number, updatedOn: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: String(id),
    case_number: `JC${String(id).slice(-6)}`,
    date: '2019-05-31T23:55:00.000',
    block: '052XX W HURON ST',
    iucr: '143A',
    primary_type: 'WEAPONS VIOLATION',
    description: 'UNLAWFUL POSS OF HANDGUN',
    location_description: 'STREET',
    arrest: true,
    domestic: false,
    beat: '1524',
    district: '015',
    ward: '37',
    community_area: '25',
    fbi_code: '15',
    x_coordinate: '1140000',
    y_coordinate: '1903000',
    year: '2019',
    updated_on: updatedOn,
    latitude: '41.89',
    longitude: '-87.75',
    location: { type: 'Point', coordinates: [-87.75, 41.89] },
    ...overrides,
  };
}
