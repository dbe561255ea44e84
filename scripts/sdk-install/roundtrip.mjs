// The round trip through ESM imports of the transport and the SDK.
import * as transport from 'mcp-msgpack-transport';
import core from './roundtrip-core.cjs';
import * as sdk from './sdk.mjs';

await core.run(sdk, transport, 'import');
