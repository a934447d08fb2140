/**
 * Writes the app icon (256×256 RGBA PNG) to resources/icon.png and build/icon.png: a sand-coloured
 * rounded square with a darker rounded "pit". Plain zlib, no image library. Run: node scripts/make-icon.mjs
 */
import { Buffer } from 'node:buffer';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SIZE = 256;
const SAMPLES = 4; // 4×4 supersampling for smooth edges

const SAND = [0xe9, 0xc9, 0x8b];
const PIT = [0xa8, 0x74, 0x2a];
const RIM = [0xf6, 0xe3, 0xb8];

/** Whether (x, y) lies inside the rounded rectangle [x0, x1] × [y0, y1] with corner radius r. */
function inRoundedRect(x, y, x0, y0, x1, y1, r) {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/** The colour of one sample point, or undefined outside the icon. */
function sample(x, y) {
  if (!inRoundedRect(x, y, 8, 8, 248, 248, 52)) return undefined;
  if (inRoundedRect(x, y, 52, 108, 204, 212, 30)) return PIT;
  if (inRoundedRect(x, y, 44, 100, 212, 220, 36)) return RIM;
  return SAND;
}

const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
for (let y = 0; y < SIZE; y++) {
  const row = y * (SIZE * 4 + 1);
  raw[row] = 0; // filter: none
  for (let x = 0; x < SIZE; x++) {
    const sum = [0, 0, 0];
    let covered = 0;
    for (let sy = 0; sy < SAMPLES; sy++) {
      for (let sx = 0; sx < SAMPLES; sx++) {
        const colour = sample(x + (sx + 0.5) / SAMPLES, y + (sy + 0.5) / SAMPLES);
        if (!colour) continue;
        covered++;
        for (let c = 0; c < 3; c++) sum[c] += colour[c];
      }
    }
    const at = row + 1 + x * 4;
    for (let c = 0; c < 3; c++) raw[at + c] = covered ? Math.round(sum[c] / covered) : 0;
    raw[at + 3] = Math.round((covered / (SAMPLES * SAMPLES)) * 255);
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bit depth
header[9] = 6; // colour type: RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);

for (const dir of ['resources', 'build']) {
  mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, dir, 'icon.png'), png);
}
process.stderr.write(`make-icon: wrote resources/icon.png and build/icon.png (${png.length} bytes)\n`);
