export { NATIVE_BYTES_CAPABILITY, NATIVE_BYTES_VERSION, type NativeBytesCapability } from './capability.js';
export { NativeBytesAdapter, nativeBytesAdapterFactory, adapterFromOption, type NativeBytesOptions, type NativeBytesRole } from './adapter.js';
export { nativeBytes, nativeImage, nativeAudio, nativeBlobContents, nativeBlobResource } from './content.js';
export { configureNativeBytes, placeholders as nativeBytesPlaceholders, PlaceholderRegistry, type PlaceholderLimits } from './registry.js';
export { callToolNative, readResourceNative, getPromptNative, createMessageNative } from './requests.js';
export * from './schemas.js';
export { NativeBytesPool, type NativeBytesPoolOptions } from '../buffers/pool.js';
