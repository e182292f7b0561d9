import { describe, expect, it } from 'vitest';
import { responseDecoding, wireRequest } from './http-go-client.ts';

// The wants follow resty v2.16.5 and Go's Transport as their source reads (the common cases were
// also run with resty against a Go test server); only the User-Agent's value is ours.
interface RequestCase {
  readonly name: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly want: Record<string, string>;
  readonly addedGzip: boolean;
}

interface ResponseCase {
  readonly name: string;
  readonly addedGzip: boolean;
  readonly headers: Record<string, string>;
  readonly want: { gunzip: boolean; dropHeaders: string[] };
}

describe("the headers Go's client adds to a request", () => {
  it.each<RequestCase>([
    {
      name: 'a GET asks for gzip and names the client',
      method: 'GET',
      headers: {},
      body: '',
      want: { 'User-Agent': 'kubedag-step', 'Accept-Encoding': 'gzip' },
      addedGzip: true,
    },
    {
      name: 'a POST without a body is still typed as plain text',
      method: 'POST',
      headers: {},
      body: '',
      want: { 'User-Agent': 'kubedag-step', 'Content-Type': 'text/plain; charset=utf-8', 'Accept-Encoding': 'gzip' },
      addedGzip: true,
    },
    {
      name: 'a JSON body is sniffed as plain text',
      method: 'PATCH',
      headers: {},
      body: '{"a": 1}',
      want: { 'User-Agent': 'kubedag-step', 'Content-Type': 'text/plain; charset=utf-8', 'Accept-Encoding': 'gzip' },
      addedGzip: true,
    },
    {
      name: 'OPTIONS gets no Content-Type',
      method: 'OPTIONS',
      headers: {},
      body: 'x',
      want: { 'User-Agent': 'kubedag-step', 'Accept-Encoding': 'gzip' },
      addedGzip: true,
    },
    {
      name: 'a JSON Content-Type of the step becomes the Accept too',
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      want: {
        'content-type': 'application/json',
        'User-Agent': 'kubedag-step',
        Accept: 'application/json',
        'Accept-Encoding': 'gzip',
      },
      addedGzip: true,
    },
    {
      name: 'an Accept of the step is kept',
      method: 'PUT',
      headers: { 'Content-Type': 'text/xml', accept: '*/*' },
      body: '',
      want: { 'Content-Type': 'text/xml', accept: '*/*', 'User-Agent': 'kubedag-step', 'Accept-Encoding': 'gzip' },
      addedGzip: true,
    },
    {
      name: 'a plain-text Content-Type is not copied into Accept',
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'x',
      want: { 'Content-Type': 'text/plain', 'User-Agent': 'kubedag-step', 'Accept-Encoding': 'gzip' },
      addedGzip: true,
    },
    {
      name: 'a blank User-Agent is replaced',
      method: 'GET',
      headers: { 'user-agent': ' ' },
      body: '',
      want: { 'User-Agent': 'kubedag-step', 'Accept-Encoding': 'gzip' },
      addedGzip: true,
    },
    {
      name: "the step's own Accept-Encoding is sent as it is",
      method: 'GET',
      headers: { 'accept-encoding': 'br' },
      body: '',
      want: { 'accept-encoding': 'br', 'User-Agent': 'kubedag-step' },
      addedGzip: false,
    },
    {
      name: 'an empty Accept-Encoding counts as none',
      method: 'GET',
      headers: { 'accept-encoding': '' },
      body: '',
      want: { 'User-Agent': 'kubedag-step', 'Accept-Encoding': 'gzip' },
      addedGzip: true,
    },
    {
      name: 'a range request does not ask for gzip',
      method: 'GET',
      headers: { Range: 'bytes=0-9' },
      body: '',
      want: { Range: 'bytes=0-9', 'User-Agent': 'kubedag-step' },
      addedGzip: false,
    },
    {
      name: 'a HEAD does not ask for gzip',
      method: 'HEAD',
      headers: {},
      body: '',
      want: { 'User-Agent': 'kubedag-step' },
      addedGzip: false,
    },
  ])('$name', ({ method, headers, body, want, addedGzip }) => {
    expect(wireRequest(method, headers, body)).toEqual({ headers: want, addedGzip });
  });
});

describe('what is undone in a response', () => {
  it.each<ResponseCase>([
    {
      name: 'gzip the runner asked for is unzipped and its headers dropped',
      addedGzip: true,
      headers: { 'content-encoding': 'gzip', 'content-length': '34' },
      want: { gunzip: true, dropHeaders: ['content-encoding', 'content-length'] },
    },
    {
      name: 'the encoding name matches in any case',
      addedGzip: true,
      headers: { 'content-encoding': 'GZip' },
      want: { gunzip: true, dropHeaders: ['content-encoding', 'content-length'] },
    },
    {
      name: 'gzip the step asked for is unzipped but its headers kept',
      addedGzip: false,
      headers: { 'content-encoding': 'gzip', 'content-length': '34' },
      want: { gunzip: true, dropHeaders: [] },
    },
    {
      name: 'gzip the step asked for with an empty body is left alone',
      addedGzip: false,
      headers: { 'content-encoding': 'gzip', 'content-length': '0' },
      want: { gunzip: false, dropHeaders: [] },
    },
    {
      name: 'deflate is passed through',
      addedGzip: true,
      headers: { 'content-encoding': 'deflate' },
      want: { gunzip: false, dropHeaders: [] },
    },
    {
      name: 'an uncompressed body is passed through',
      addedGzip: true,
      headers: { 'content-length': '2' },
      want: { gunzip: false, dropHeaders: [] },
    },
  ])('$name', ({ addedGzip, headers, want }) => {
    expect(responseDecoding(addedGzip, headers)).toEqual(want);
  });
});
