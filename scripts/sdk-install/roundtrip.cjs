// The round trip through require() of the transport and the SDK.
const transport = require('mcp-msgpack-transport');
const core = require('./roundtrip-core.cjs');
const sdk = require('./sdk.cjs');

core.run(sdk, transport, 'require').catch((error) => {
  console.error(error);
  process.exit(1);
});
