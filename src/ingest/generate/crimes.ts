// Synthetic "Crimes - 2001 to Present" in the portal's exact CSV format, with
// the real data's shape: yearly totals and per-type trends, seasonality, the
// hour-of-day pattern, IUCR/FBI codes consistent with the type, arrest and
// domestic rates by type, places spread over the 77 community areas with their
// district, beat, ward and a grid-correct block, and a small share of missing
// values. Same seed, same file. All the numbers live in fixtures/data/chicago.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../../core/paths.js';
import { PORTAL_CSV_HEADER } from '../crimes/crime-table.js';
import { CsvWriter, csvField } from './csv-writer.js';
import { Random, WeightedChoice, interpolateAnchors } from './random.js';

interface Offense {
  iucr: string;
  description: string;
  fbiCode: string;
  weight: number;
}
interface CrimeType {
  primaryType: string;
  sharePercent: number;
  arrestRate: number;
  domesticRate: number;
  trend: Record<string, number>;
  offenses: Offense[];
  locations?: Record<string, number>;
}
interface CrimeFacts {
  types: CrimeType[];
  defaultLocations: Record<string, number>;
  incidentsPerYear: Record<string, number>;
  monthWeights: number[];
  hourWeights: number[];
  arrestTrend: Record<string, number>;
  missing: { coordinates: number; locationDescription: number; wardAndAreaIn2001: number; wardAndArea: number };
  casePrefixes: Record<string, string>;
}
interface Geography {
  communityAreas: { communityArea: number; lat: number; lon: number; weight: number }[];
  districts: { district: number; lat: number; lon: number; beats: number }[];
  eastWestStreets: { name: string; lat: number }[];
  northSouthStreets: { name: string; lon: number }[];
  grid: { stateStLon: number; madisonStLat: number; milesPerDegreeLat: number; milesPerDegreeLon: number; numbersPerMile: number };
  statePlane: { x0: number; y0: number; lon0: number; lat0: number; feetPerDegreeLon: number; feetPerDegreeLat: number };
  spreadDegrees: number;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(fixturePath('data', 'chicago', file), 'utf8')) as T;

export interface CrimeGeneratorOptions {
  rows: number;
  seed: number;
  out: string;
  fromYear?: number;
  toYear?: number;
  onProgress?: (rowsWritten: number, totalRows: number) => void;
}

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;

/** `MM/DD/YYYY hh:mm:ss AM/PM` from parts (hour 0-23). */
function portalTimestamp(y: number, mo: number, d: number, h: number, mi: number, s: number): string {
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return `${pad2(mo)}/${pad2(d)}/${y} ${pad2(h12)}:${pad2(mi)}:${pad2(s)} ${h < 12 ? 'AM' : 'PM'}`;
}

/** Splits `total` over weights into whole numbers that add up exactly. */
export function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const raw = weights.map((w) => (total * w) / sum);
  const counts = raw.map(Math.floor);
  let left = total - counts.reduce((a, b) => a + b, 0);
  const byRemainder = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of byRemainder) {
    if (left-- <= 0) break;
    counts[i]++;
  }
  return counts;
}

class Places {
  private readonly areaChoice: WeightedChoice;
  private readonly wardCentroids: { lat: number; lon: number }[];

  constructor(private readonly geo: Geography) {
    this.areaChoice = new WeightedChoice(geo.communityAreas.map((a) => a.weight));
    // 50 ward centroids spread over the community areas in a fixed (seed-independent) way.
    const byLat = [...geo.communityAreas].sort((a, b) => b.lat - a.lat || a.lon - b.lon);
    this.wardCentroids = Array.from({ length: 50 }, (_, w) => {
      const a = byLat[Math.round((w * (byLat.length - 1)) / 49)];
      return { lat: a.lat + ((w % 3) - 1) * 0.004, lon: a.lon + ((w % 5) - 2) * 0.003 };
    });
  }

  point(random: Random) {
    const area = this.geo.communityAreas[this.areaChoice.pick(random)];
    const lat = area.lat + random.normal() * this.geo.spreadDegrees * 0.7;
    const lon = area.lon + random.normal() * this.geo.spreadDegrees;
    return { area: area.communityArea, lat, lon };
  }

  district(lat: number, lon: number) {
    let best = this.geo.districts[0];
    let bestD = Infinity;
    for (const d of this.geo.districts) {
      const dist = (d.lat - lat) ** 2 + ((d.lon - lon) * 0.745) ** 2;
      if (dist < bestD) {
        bestD = dist;
        best = d;
      }
    }
    return best;
  }

  /** A beat of the district (`DDSB`: district, sector, beat), stable for a small grid cell. */
  beat(district: { district: number; beats: number }, lat: number, lon: number): string {
    const cell = Math.floor(lat / 0.006) * 7919 + Math.floor(lon / 0.008) * 104729;
    const k = Math.abs(cell) % district.beats;
    const code = district.district * 100 + (Math.floor(k / 4) + 1) * 10 + (k % 4) + 1;
    return String(code).padStart(4, '0');
  }

  ward(lat: number, lon: number): number {
    let best = 0;
    let bestD = Infinity;
    for (let w = 0; w < 50; w++) {
      const c = this.wardCentroids[w];
      const dist = (c.lat - lat) ** 2 + ((c.lon - lon) * 0.745) ** 2;
      if (dist < bestD) {
        bestD = dist;
        best = w;
      }
    }
    return best + 1;
  }

  /** `052XX W HURON ST`: the hundred block on the nearest grid street. */
  block(random: Random, lat: number, lon: number): string {
    const g = this.geo.grid;
    const eastWest = random.chance(0.5);
    let number: number;
    let direction: string;
    let street: string;
    if (eastWest) {
      const s = nearest(this.geo.eastWestStreets, (x) => Math.abs(x.lat - lat), random);
      street = s.name;
      number = Math.abs(lon - g.stateStLon) * g.milesPerDegreeLon * g.numbersPerMile;
      direction = lon < g.stateStLon ? 'W' : 'E';
    } else {
      const s = nearest(this.geo.northSouthStreets, (x) => Math.abs(x.lon - lon), random);
      street = s.name;
      number = Math.abs(lat - g.madisonStLat) * g.milesPerDegreeLat * g.numbersPerMile;
      direction = lat > g.madisonStLat ? 'N' : 'S';
    }
    const hundreds = Math.floor(number / 100);
    return `${hundreds === 0 ? '0000X' : String(hundreds).padStart(3, '0') + 'XX'} ${direction} ${street}`;
  }
}

/** One of the two nearest items, mostly the nearest. */
function nearest<T>(items: T[], distance: (x: T) => number, random: Random): T {
  let first = items[0];
  let second = items[0];
  let d1 = Infinity;
  let d2 = Infinity;
  for (const item of items) {
    const d = distance(item);
    if (d < d1) {
      second = first;
      d2 = d1;
      first = item;
      d1 = d;
    } else if (d < d2) {
      second = item;
      d2 = d;
    }
  }
  return random.chance(0.75) ? first : second;
}

const BULK_UPDATE_STAMPS = ['02/10/2018 03:50:01 PM', '02/04/2016 06:33:39 AM', '08/17/2015 03:03:40 PM'];

export async function generateCrimes(options: CrimeGeneratorOptions): Promise<{ rows: number }> {
  const facts = readJson<CrimeFacts>('crime-types.json');
  const geo = readJson<Geography>('geography.json');
  const random = new Random(options.seed);
  const places = new Places(geo);
  const fromYear = options.fromYear ?? 2001;
  const toYear = options.toYear ?? 2025;
  const years = Array.from({ length: toYear - fromYear + 1 }, (_, i) => fromYear + i);
  const perYear = apportion(
    options.rows,
    years.map((y) => facts.incidentsPerYear[String(y)] ?? 250_000),
  );

  const offenseChoices = facts.types.map((t) => new WeightedChoice(t.offenses.map((o) => o.weight)));
  const locationChoices = facts.types.map((t) => {
    const entries = Object.entries(t.locations ?? facts.defaultLocations);
    return { names: entries.map((e) => e[0]), choice: new WeightedChoice(entries.map((e) => e[1])) };
  });
  const hourChoice = new WeightedChoice(facts.hourWeights);
  const sp = geo.statePlane;
  const writer = new CsvWriter(options.out, PORTAL_CSV_HEADER);

  let id = 1_300_000;
  let written = 0;
  for (let yi = 0; yi < years.length; yi++) {
    const year = years[yi];
    const n = perYear[yi];
    const typeChoice = new WeightedChoice(facts.types.map((t) => t.sharePercent * interpolateAnchors(t.trend, year)));
    const arrestFactor = interpolateAnchors(facts.arrestTrend, year);
    const prefix = facts.casePrefixes[String(year)] ?? 'JZ';

    // Days weighted by month seasonality; timestamps sorted so ids grow with time, as the portal's do.
    const dayWeights: number[] = [];
    const dayMonth: number[] = [];
    const dayOfMonth: number[] = [];
    for (let m = 1; m <= 12; m++) {
      const days = new Date(Date.UTC(year, m, 0)).getUTCDate();
      for (let d = 1; d <= days; d++) {
        dayWeights.push(facts.monthWeights[m - 1]);
        dayMonth.push(m);
        dayOfMonth.push(d);
      }
    }
    const dayChoice = new WeightedChoice(dayWeights);
    const stamps = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const day = dayChoice.pick(random);
      const hour = hourChoice.pick(random);
      const u = random.next();
      const minute = u < 0.35 ? 0 : u < 0.45 ? 30 : random.int(0, 59);
      stamps[i] = day * 1440 + hour * 60 + minute;
    }
    stamps.sort();

    for (let i = 0; i < n; i++) {
      const stamp = stamps[i];
      const day = Math.floor(stamp / 1440);
      const hour = Math.floor((stamp % 1440) / 60);
      const minute = stamp % 60;
      const month = dayMonth[day];
      const dom = dayOfMonth[day];
      const ti = typeChoice.pick(random);
      const type = facts.types[ti];
      const offense = type.offenses[offenseChoices[ti].pick(random)];
      const loc = locationChoices[ti];
      const place = places.point(random);
      const district = places.district(place.lat, place.lon);
      id += 1 + (random.chance(0.3) ? random.int(1, 3) : 0);

      const noPlaceDetail = year === 2001 ? random.chance(facts.missing.wardAndAreaIn2001) : random.chance(facts.missing.wardAndArea);
      const noCoordinates = random.chance(facts.missing.coordinates);
      const arrest = random.chance(Math.min(0.995, type.arrestRate * (type.arrestRate > 0.9 ? 1 : arrestFactor)));
      const domestic = random.chance(type.domesticRate);
      const locationDescription = random.chance(facts.missing.locationDescription) ? '' : loc.names[loc.choice.pick(random)];

      let updatedOn: string;
      if (year <= 2014 && random.chance(0.85)) {
        updatedOn = BULK_UPDATE_STAMPS[random.int(0, BULK_UPDATE_STAMPS.length - 1)];
      } else {
        const t = new Date(Date.UTC(year, month - 1, dom, hour, minute) + random.int(1, 14) * 86_400_000 + random.int(0, 86_399) * 1000);
        updatedOn = portalTimestamp(
          t.getUTCFullYear(),
          t.getUTCMonth() + 1,
          t.getUTCDate(),
          t.getUTCHours(),
          t.getUTCMinutes(),
          t.getUTCSeconds(),
        );
      }

      let coords: string;
      if (!noCoordinates) {
        const lat = place.lat.toFixed(9);
        const lon = place.lon.toFixed(9);
        const x = Math.round(sp.x0 + (place.lon - sp.lon0) * sp.feetPerDegreeLon);
        const y = Math.round(sp.y0 + (place.lat - sp.lat0) * sp.feetPerDegreeLat);
        coords = `${x},${y},${year},${csvField(updatedOn)},${lat},${lon},"(${lat}, ${lon})"`;
      } else {
        coords = `,,${year},${csvField(updatedOn)},,,`;
      }

      const line =
        `${id},${prefix}${String(i + 100_000).padStart(6, '0')},${portalTimestamp(year, month, dom, hour, minute, 0)},` +
        `${csvField(places.block(random, place.lat, place.lon))},${offense.iucr},${csvField(type.primaryType)},` +
        `${csvField(offense.description)},${csvField(locationDescription)},${arrest},${domestic},` +
        `${places.beat(district, place.lat, place.lon)},${String(district.district).padStart(3, '0')},` +
        `${noPlaceDetail ? '' : places.ward(place.lat, place.lon)},${noPlaceDetail ? '' : place.area},${offense.fbiCode},${coords}`;
      await writer.line(line);
      written++;
      if ((written & 0xffff) === 0) options.onProgress?.(written, options.rows);
    }
  }
  await writer.close();
  options.onProgress?.(written, options.rows);
  return { rows: written };
}
