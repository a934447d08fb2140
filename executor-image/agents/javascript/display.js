'use strict';
/*
 * display(obj, …) in the context: PNG/JPEG/GIF bytes, `<svg …>` strings and objects with _repr_png_ /
 * _repr_svg_ / _repr_html_ are sent as rich output (`display` messages, ordered with the text output by a
 * mark); anything else is printed on stdout (util.inspect), as the Python agent does.
 */

const util = require('util');
const { displayMessage } = require('./protocol');

function asBuffer(value) {
  if (Buffer.isBuffer(value)) return value;
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (Object.prototype.toString.call(value) === '[object ArrayBuffer]') return Buffer.from(value);
  return undefined;
}

function imageMime(buf) {
  if (buf.length >= 8 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg';
  if (buf.length >= 6 && /^GIF8[79]a$/.test(buf.subarray(0, 6).toString('latin1'))) return 'image/gif';
  return undefined;
}

const SVG_TEXT = /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>/]/i;

/** [mime, data, encoding] for an object with a rich representation, else undefined. */
function richRepr(obj) {
  if (obj === null || obj === undefined) return undefined;
  if (typeof obj === 'string') return SVG_TEXT.test(obj) ? ['image/svg+xml', obj, 'utf8'] : undefined;
  if (typeof obj !== 'object' && typeof obj !== 'function') return undefined;
  const buf = asBuffer(obj);
  if (buf) {
    const mime = imageMime(buf);
    return mime ? [mime, buf.toString('base64'), 'base64'] : undefined;
  }
  for (const [method, mime] of [
    ['_repr_png_', 'image/png'],
    ['_repr_svg_', 'image/svg+xml'],
    ['_repr_html_', 'text/html'],
  ]) {
    const fn = obj[method];
    if (typeof fn !== 'function') continue;
    let value = fn.call(obj);
    if (Array.isArray(value) && value.length) value = value[0]; // IPython's (data, metadata)
    const bytes = asBuffer(value);
    if (bytes)
      return mime === 'image/png' ? [mime, bytes.toString('base64'), 'base64'] : [mime, bytes.toString('utf8'), 'utf8'];
    if (typeof value === 'string') return [mime, value, mime === 'image/png' ? 'base64' : 'utf8'];
  }
  return undefined;
}

/**
 * The context's display(). `stdout` is the user stdout stream, `mark` the main thread's mark(), and
 * `executionId()` the id of the execution being handled (null between executions: rich output is dropped).
 */
function createDisplay({ stdout, mark, executionId }) {
  return function display(...objs) {
    for (const obj of objs) {
      const rich = richRepr(obj);
      if (!rich) {
        stdout.write(`${typeof obj === 'string' ? obj : util.inspect(obj)}\n`);
        continue;
      }
      const id = executionId();
      if (id === null) continue; // no execution to attach it to
      const [mime, data, encoding] = rich;
      mark({ then: [displayMessage(id, mime, data, encoding)] });
    }
  };
}

module.exports = { createDisplay };
