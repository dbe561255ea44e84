// How a POST body is framed, beyond its media type (issue 32, F14): a Content-Encoding the server does not
// decode is refused with 415 (a compressed body is never read as JSON or MessagePack, a plain one labelled
// compressed is never served), and `Expect: 100-continue` gets `100 Continue` only once the headers and the
// length are accepted, so a client is never invited to send a body that will be refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { rawConnection, INITIALIZE_BODY } from './fixtures/raw-connections.js';
import { serverKinds, startTestServer } from './fixtures/http-helpers.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Waits until the server's answer holds a final status line (not 1xx), or `ms` pass. */
async function statusLines(received: () => string, ms = 5_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const lines = received().match(/^HTTP\/1\.1 \d{3}/gm) ?? [];
    if (lines.some((line) => !line.endsWith(' 100')) || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const kind of serverKinds) {
  describe(`${kind}: request bodies in a content coding, and Expect: 100-continue`, { timeout: 30_000 }, () => {
    it('with compression off, Content-Encoding gzip (real or only a label) is 415 naming the coding; identity is served', async () => {
      const server = await startTestServer(kind, { compression: false });
      try {
        const gzipped = await fetch(server.url, { method: 'POST', headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' }, body: gzipSync(INITIALIZE_BODY) });
        assert.equal(gzipped.status, 415);
        assert.equal(gzipped.headers.get('accept-encoding'), 'identity');
        const refusal = (await gzipped.json()) as { error: { message: string } };
        assert.match(refusal.error.message, /Content-Encoding gzip/);
        const labelled = await fetch(server.url, { method: 'POST', headers: { ...JSON_HEADERS, 'content-encoding': 'GZIP' }, body: INITIALIZE_BODY });
        assert.equal(labelled.status, 415);
        assert.equal(server.handler.sessionCount, 0, 'nothing was served for either');
        const identity = await fetch(server.url, { method: 'POST', headers: { ...JSON_HEADERS, 'content-encoding': 'identity' }, body: INITIALIZE_BODY });
        assert.equal(identity.status, 200);
        await identity.arrayBuffer();
      } finally {
        await server.close();
      }
    });

    it('by default, a gzip body is decoded and served; a plain body labelled gzip is 400, never read as it is', async () => {
      const server = await startTestServer(kind);
      try {
        const labelled = await fetch(server.url, { method: 'POST', headers: { ...JSON_HEADERS, 'content-encoding': 'GZIP' }, body: INITIALIZE_BODY });
        assert.equal(labelled.status, 400);
        assert.match(((await labelled.json()) as { error: { message: string } }).error.message, /gzip body does not decode/);
        assert.equal(server.handler.sessionCount, 0, 'nothing was served for it');
        const gzipped = await fetch(server.url, { method: 'POST', headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' }, body: gzipSync(INITIALIZE_BODY) });
        assert.equal(gzipped.status, 200);
        await gzipped.arrayBuffer();
      } finally {
        await server.close();
      }
    });

    it('a length over the cap is refused 413 without 100 Continue; an accepted one gets 100, then its answer', async () => {
      const server = await startTestServer(kind);
      try {
        const { url } = server;
        const tooLong = rawConnection(url, 10_000);
        tooLong.socket.write(
          `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`,
        );
        const refused = await statusLines(tooLong.received);
        tooLong.socket.destroy();
        // Bun.serve writes 100 Continue itself as soon as the headers arrive, before any handler runs (Bun
        // 1.4.5 has no option for it); the 413 follows with Connection: close and no byte of the body is
        // read. Pinned, so a Bun that leaves it to the handler shows up here.
        const expected = kind === 'Bun.serve' ? ['HTTP/1.1 100', 'HTTP/1.1 413'] : ['HTTP/1.1 413'];
        assert.deepEqual(refused, expected, `the server answered ${JSON.stringify(tooLong.received().slice(0, 200))}`);

        const fine = rawConnection(url, 10_000);
        fine.socket.write(
          `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nExpect: 100-continue\r\nContent-Length: ${Buffer.byteLength(INITIALIZE_BODY)}\r\n\r\n`,
        );
        // The client waits for 100 Continue before it sends the body, as curl and undici do.
        const invited = await statusLines(fine.received, 3_000);
        assert.deepEqual(invited, ['HTTP/1.1 100']);
        fine.socket.write(INITIALIZE_BODY);
        const answered = await statusLines(fine.received);
        fine.socket.destroy();
        assert.deepEqual(answered, ['HTTP/1.1 100', 'HTTP/1.1 200']);
      } finally {
        await server.close();
      }
    });
  });
}
