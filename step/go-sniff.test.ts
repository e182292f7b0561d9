import { describe, expect, it } from 'vitest';
import { detectContentType } from './go-sniff.ts';

// Each `want` is what Go 1.26's http.DetectContentType returned for the same bytes.
describe('detecting a body type as Go does', () => {
  it.each([
    { name: 'an empty body is plain text', body: '', want: 'text/plain; charset=utf-8' },
    { name: 'JSON is plain text, not application/json', body: '{"a": 1}', want: 'text/plain; charset=utf-8' },
    { name: 'form-encoded text is plain text', body: 'a=1&b=2', want: 'text/plain; charset=utf-8' },
    {
      name: 'an XML declaration after whitespace is XML',
      body: '  \n<?xml version="1.0"?><a/>',
      want: 'text/xml; charset=utf-8',
    },
    { name: 'a doctype in any case is HTML', body: '<!doctype html>\n<p>', want: 'text/html; charset=utf-8' },
    { name: 'an html tag after a tab is HTML', body: '\t<Html lang=en>', want: 'text/html; charset=utf-8' },
    { name: 'a leading comment is HTML', body: '<!-- note -->', want: 'text/html; charset=utf-8' },
    { name: 'a b tag is HTML', body: '<b>bold</b>', want: 'text/html; charset=utf-8' },
    {
      name: 'a tag that only starts like one of the table is not HTML',
      body: '<abbr>x</abbr>',
      want: 'text/plain; charset=utf-8',
    },
    { name: 'a PDF header is a PDF', body: '%PDF-1.7', want: 'application/pdf' },
    { name: 'a GIF header is a GIF', body: 'GIF87a...', want: 'image/gif' },
    { name: 'a UTF-8 byte order mark is UTF-8 text', body: '\xef\xbb\xbfhello', want: 'text/plain; charset=utf-8' },
    {
      name: 'tabs, line ends and escape are still text',
      body: 'tab\tand\r\nnewlines\x1b[0m',
      want: 'text/plain; charset=utf-8',
    },
    { name: 'a bell character makes it binary', body: 'bell\x07', want: 'application/octet-stream' },
    {
      name: 'an ftyp box with an mp4 brand is MP4',
      body: '\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom',
      want: 'video/mp4',
    },
    { name: 'the WebAssembly magic is wasm', body: '\x00asm\x01\x00\x00\x00', want: 'application/wasm' },
    { name: 'a zip header is a zip', body: 'PK\x03\x04rest', want: 'application/zip' },
    {
      name: 'bytes after the first 512 are not looked at',
      body: `${'a'.repeat(512)}\x01`,
      want: 'text/plain; charset=utf-8',
    },
    { name: 'whitespace alone is plain text', body: '   ', want: 'text/plain; charset=utf-8' },
  ])('$name', ({ body, want }) => {
    expect(detectContentType(Buffer.from(body, 'latin1'))).toBe(want);
  });
});
