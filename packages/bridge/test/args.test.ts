// The bridge's command line, host-to-remote options: what a desktop config can get wrong is refused at start,
// naming the option, instead of failing the first request or being ignored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_MAX_TOTAL_QUEUE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, parseArgs, type RemoteArgs, type ServeArgs } from 'mcp-msgpack-bridge';

const URL_ARG = 'https://media.example.com/mcp';
/** `${NAME}`, as a desktop config writes it for the bridge to replace (a plain string, not a template). */
const fromEnv = (name: string): string => ['$', '{', name, '}'].join('');

function remote(args: string[], env: NodeJS.ProcessEnv = {}): RemoteArgs {
  const parsed = parseArgs([URL_ARG, ...args], env);
  assert.equal(parsed.mode, 'remote');
  return parsed as RemoteArgs;
}

describe('bridge options: host to remote', () => {
  it('times a request out before a stock host does (its 60 s), so the host sees the bridge error', () => {
    assert.ok(DEFAULT_REQUEST_TIMEOUT_MS < 60_000, String(DEFAULT_REQUEST_TIMEOUT_MS));
    assert.equal(remote([]).requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
  });

  it('refuses a --header value with a line break, naming --header', () => {
    assert.throws(() => remote(['--header', 'X-Team: a\nInjected: yes']), /^Error: --header X-Team: the value holds a line break/);
    // Also when the line break comes from the environment.
    assert.throws(() => remote(['--header', `X-Team: ${fromEnv('TEAM')}`], { TEAM: 'a\r\nb' }), /--header X-Team: the value holds a line break/);
  });

  it('refuses a --header value with characters beyond Latin-1, naming --header and the character', () => {
    assert.throws(() => remote(['--header', 'X-Team: équipe → design']), /--header X-Team: the value holds U\+2192, not a Latin-1 character/);
    assert.throws(() => remote(['--bearer', 'tok\u0000en']), /--bearer: the value holds the control character U\+0000/);
  });

  it('refuses the headers the bridge sets itself (Content-Type follows the wire) instead of ignoring them', () => {
    assert.throws(() => remote(['--header', 'Content-Type: application/json']), /--header "Content-Type: application\/json": the bridge sets Content-Type itself/);
    assert.throws(() => remote(['--header', 'mcp-session-id: abc']), /the bridge sets mcp-session-id itself/);
  });

  it('keeps good headers as given (Latin-1 and tabs are fine)', () => {
    const args = remote(['--header', 'X-Team: équipe\tdesign', '--header', `X-Env: ${fromEnv('E')}`], { E: 'prod' });
    assert.deepEqual(args.headers, { 'X-Team': 'équipe\tdesign', 'X-Env': 'prod' });
  });
});

describe('bridge options: --serve queues', () => {
  it('bounds the bytes queued over all sessions, by default below what the sessions could queue together', () => {
    const parsed = parseArgs(['--serve', '--', 'server']) as ServeArgs;
    assert.equal(parsed.maxTotalQueueBytes, DEFAULT_MAX_TOTAL_QUEUE_BYTES);
    assert.ok(parsed.maxTotalQueueBytes < parsed.maxSessions * parsed.maxQueueBytes || parsed.maxSessions <= 4);
    assert.equal((parseArgs(['--serve', '--max-total-queue-bytes', '1048576', '--', 'server']) as ServeArgs).maxTotalQueueBytes, 1048576);
    assert.throws(() => parseArgs(['--serve', '--max-total-queue-bytes', '0', '--', 'server']), /--max-total-queue-bytes 0: expected a positive number of bytes/);
  });
});
