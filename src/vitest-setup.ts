/** The package's `card-sandbox/vitest` entry point. */
export * from './kits/vitest-setup.js'
export { default } from './kits/vitest-setup.js'
