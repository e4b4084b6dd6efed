// A chart as a palette PNG: every pixel mapped to the nearest of a few colors
// (the chart's own inks, each with a short ramp towards white for the
// anti-aliased edges of lines and text), written as an indexed PNG of 4 or 8
// bits a pixel. A chart is flat color on white, so this keeps it sharp and
// shrinks it several times: what lets a card's chart go inline in Teams.

import { deflateSync } from 'node:zlib';

export type Rgb = [number, number, number];

/** "#1f77b4" or "#1f77b433" (alpha, drawn over white) -> RGB. */
export function hexOnWhite(hex: string): Rgb {
  const h = hex.replace('#', '');
  const rgb = [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
  const alpha = h.length === 8 ? parseInt(h.slice(6, 8), 16) / 255 : 1;
  return rgb.map((c) => Math.round(c * alpha + 255 * (1 - alpha))) as Rgb;
}

/** White, and for each ink the ink and `steps - 1` blends of it with white. */
export function rampPalette(inks: Rgb[], steps = 4): Rgb[] {
  const out: Rgb[] = [[255, 255, 255]];
  const seen = new Set(['255,255,255']);
  for (const ink of inks) {
    for (let s = 1; s <= steps; s++) {
      const t = s / steps;
      const c = ink.map((v) => Math.round(255 + (v - 255) * t)) as Rgb;
      const key = c.join(',');
      if (!seen.has(key)) {
        seen.add(key);
        out.push(c);
      }
    }
  }
  return out.slice(0, 256);
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** RGBA pixels (unpremultiplied), seen over white -> an indexed PNG with the nearest palette color for each pixel. */
export function encodeIndexedPng(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number, palette: Rgb[]): Buffer {
  const depth = palette.length <= 16 ? 4 : 8;
  const perByte = 8 / depth;
  const stride = Math.ceil(width / perByte);
  const raw = Buffer.alloc((stride + 1) * height);
  const cache = new Map<number, number>();
  const nearest = (r: number, g: number, b: number): number => {
    const key = (r << 16) | (g << 8) | b;
    let index = cache.get(key);
    if (index === undefined) {
      let best = Infinity;
      index = 0;
      for (let i = 0; i < palette.length; i++) {
        const [pr, pg, pb] = palette[i];
        // weighted for the eye: green counts most, blue least
        const d = 3 * (r - pr) ** 2 + 4 * (g - pg) ** 2 + 2 * (b - pb) ** 2;
        if (d < best) ((best = d), (index = i));
      }
      cache.set(key, index);
    }
    return index;
  };
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1);
    raw[row] = 0; // filter: none (best for palette images)
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      const a = rgba[p + 3] / 255;
      const over = (c: number) => Math.round(c * a + 255 * (1 - a));
      const index = nearest(over(rgba[p]), over(rgba[p + 1]), over(rgba[p + 2]));
      if (depth === 8) raw[row + 1 + x] = index;
      else raw[row + 1 + (x >> 1)] |= x & 1 ? index : index << 4;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = 3; // indexed color
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('PLTE', Buffer.from(palette.flat())),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
