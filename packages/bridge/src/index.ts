// The bridge as a library, for tests and for programs that embed it; the CLI (cli.ts) is the usual way in.
export { parseArgs, USAGE, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_MAX_TOTAL_QUEUE_BYTES, type BridgeArgs, type RemoteArgs, type ServeArgs } from './args.js';
export { HostToRemote, type RelayOptions } from './remote/relay.js';
export { LoopbackOAuthProvider } from './remote/oauth.js';
export { serveStdioServer, type RunningBridgeServer } from './serve/serve.js';
