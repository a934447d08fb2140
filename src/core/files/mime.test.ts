import { describe, expect, it } from 'vitest';
import { detectMime, isImageMime } from './mime';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const GIF = Buffer.from('GIF89a\x01\x00', 'latin1');
const PDF = Buffer.from('%PDF-1.7\n');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([1, 2, 3, 4]), Buffer.from('WEBPVP8 ')]);
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0]);

describe('detectMime', () => {
  it.each([
    ['plot.png', PNG, 'image/png'],
    ['photo', JPEG, 'image/jpeg'],
    ['anim.bin', GIF, 'image/gif'],
    ['report', PDF, 'application/pdf'],
    ['image.webp', WEBP, 'image/webp'],
    ['archive', ZIP, 'application/zip'],
    ['report.docx', ZIP, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['notes.txt', ZIP, 'application/zip'],
    ['misnamed.txt', PNG, 'image/png'],
  ])('sniffs %s', (path, head, expected) => {
    expect(detectMime(path, head)).toBe(expected);
  });

  it.each([
    ['a.svg', 'image/svg+xml'],
    ['index.HTML', 'text/html'],
    ['data.csv', 'text/csv'],
    ['data.json', 'application/json'],
    ['README.md', 'text/markdown'],
    ['notes.txt', 'text/plain'],
    ['main.py', 'text/x-python'],
    ['app.js', 'text/javascript'],
    ['dir.with.dots/file', 'application/octet-stream'],
    ['.bashrc', 'application/octet-stream'],
    ['noext', 'application/octet-stream'],
    ['plot.png', 'image/png'],
  ])('maps the extension of %s', (path, expected) => {
    expect(detectMime(path)).toBe(expected);
    expect(detectMime(path, Buffer.from('plain text content'))).toBe(
      expected === 'image/png' ? 'application/octet-stream' : expected,
    );
  });

  it('never trusts an image extension over the bytes', () => {
    expect(detectMime('fake.png', Buffer.from('<script>alert(1)</script>'))).toBe('application/octet-stream');
    expect(detectMime('fake.jpg', Buffer.alloc(0))).toBe('application/octet-stream');
    expect(detectMime('fake.pdf', PNG)).toBe('image/png');
  });
});

describe('isImageMime', () => {
  it('is true for raster images only', () => {
    expect(isImageMime('image/png')).toBe(true);
    expect(isImageMime('IMAGE/JPEG; q=1')).toBe(true);
    expect(isImageMime('image/gif')).toBe(true);
    expect(isImageMime('image/webp')).toBe(true);
    expect(isImageMime('image/svg+xml')).toBe(false);
    expect(isImageMime('text/html')).toBe(false);
    expect(isImageMime('')).toBe(false);
  });
});
