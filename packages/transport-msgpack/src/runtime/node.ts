import { exposedGc, hasModuleNotFoundCode, type ClientFetch, type Runtime } from './runtime.js';
import { zlibContentCodings } from './zlib-codings.js';
import { connectorCheckingBeforeWrite } from './closed-before-write.js';
import { retryUnwritten } from './unwritten-retry.js';

/**
 * The client's default fetch on Node: undici's fetch on an Agent of its own, so connections are kept alive
 * per origin and closed with the transport (Node's global fetch measured the same within noise). A request
 * a reset kept-alive connection failed before any of it was written is sent once more (retryUnwritten), and
 * a connection the server closed is found so just before a request is written on it (closed-before-write.ts).
 */
function undiciFetch(): ClientFetch {
  let agent: import('undici').Agent | undefined;
  let dispatcher: import('undici').Dispatcher | undefined;
  let undici: Promise<typeof import('undici')> | undefined;
  return {
    fetch: async (url, init) => {
      undici ??= import('undici');
      const { Agent, buildConnector, fetch: undiciFetch } = await undici;
      if (!agent) {
        agent = new Agent({ keepAliveTimeout: 10_000, connect: connectorCheckingBeforeWrite(buildConnector({})) });
        dispatcher = agent.compose(retryUnwritten);
      }
      return (await undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as Response;
    },
    close: async () => {
      // Forget the agent: the SDK's OAuth flow calls finishAuth() on the transport connect() already
      // closed, and that fetch must get a fresh agent, not a destroyed one.
      const closing = agent;
      agent = undefined;
      dispatcher = undefined;
      await closing?.destroy();
    },
  };
}

/** Node (and runtimes that pass for it): node:http, V8. */
export const nodeRuntime: Runtime = {
  name: 'node',
  defaultFetch: undiciFetch,
  streamHeadersWaitForFirstChunk: false,
  writersGiveBackLentBytes: true,
  adapterWritesReplyText: true,
  measuresLinesByEncoding: true,
  // V8: the single pass loses to guard + msgpackr on many short strings and at 1 MB, and a native
  // latin1Slice call costs more than building a short string char by char (same command and README section).
  decodePath: 'guard-then-msgpackr',
  shortAsciiFromWindow: false,
  // V8 (README "Per-message encoding", `npx mcp-msgpack-bench --calibrate` and the benchmark's
  // `--scenario object --transport http`): MessagePack wins from short strings on (a text result of a few
  // hundred characters already), on numbers and on large arrays of values. Records go as JSON up to about
  // 150 KB: with the decoder's exact key budget their encode + decode costs more in MessagePack at 50-100 KB;
  // from about 200 KB on V8's JSON costs more per byte and MessagePack wins for the sender (whose encode
  // saves more than the receiver's decode adds). The break-even is in values, the walk's estimate. On small
  // messages the codec's gain is a sliver of a call: a tie goes to JSON, the baseline, whose reply text
  // node:http writes as it is.
  encodingBreakEven: { longStringChars: 128, smallValues: 256, msgpackForSmall: false, msgpackForNumeric: true, msgpackForKeySparse: true, keyDenseMsgpackValues: 7_500 },
  contentCodings: zlibContentCodings(),
  isModuleNotFound: hasModuleNotFoundCode,
  fullGarbageCollection: exposedGc,
};

/** The runtime this module is picked for (package.json "imports", `#runtime`, condition `node`). */
export const runtime: Runtime = nodeRuntime;
