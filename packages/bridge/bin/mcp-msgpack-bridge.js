#!/usr/bin/env node
// Committed entry point, so that npm links the command at install time, before the build creates dist/.
import('../dist/esm/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/esm/cli.js')) {
    console.error('mcp-msgpack-bridge is not built yet: run `npm run build` in the repository root (npm ci does it).');
    process.exit(1);
  }
  throw error;
});
