export {
  createFilesystemServer,
  resolveAllowedDirectories,
  SERVER_NAME,
  SERVER_VERSION,
  type FilesystemServerOptions,
} from './server.js';
export { AllowedDirectories, type AllowedDirectory } from './security/allowed-directories.js';
export { AccessDeniedError, PathChangedError } from './security/errors.js';
export { DEFAULT_MAX_MEDIA_BYTES } from './media/limits.js';
export { mediaTypeOf } from './media/mime.js';
export { resolveRequestPath } from './security/request-path.js';
export { isInsideDirectory } from './security/path-inside.js';
export { parseCliArgs, USAGE, type CliOptions } from './cli-args.js';
export { formatSize } from './text/format-size.js';
export { GLIBC_MALLOC_SETTINGS, garbageCollectorForThisProcess, mallocReexecEnv, reexecWithMallocSettings } from './process-memory.js';
