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
